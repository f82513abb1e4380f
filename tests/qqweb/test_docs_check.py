"""scripts/check_docs.py (run by `make lint`): the configuration table against the
settings, and the links and anchors of the README and docs/."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_docs", ROOT / "scripts" / "check_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_docs"] = module
    spec.loader.exec_module(module)
    return module


check_docs = _checker()

SETTINGS = """
import os

def envstr(name, default): return os.environ.get(name, default)
def envint(name, default): return int(os.environ.get(name) or default)
def envbool(name, default): return default

MONGODB_URI = envstr("MONGODB_URI", "mongodb://localhost:27017")
QQ_STORE_TIMEOUT_MS = envint("QQ_STORE_TIMEOUT_MS", 2000)
QQ_HTTPS = envbool("QQ_HTTPS", False)
QQ_NEW_KNOB = envint("QQ_NEW_KNOB", 7)
"""

CONFIGURATION = """# Configuration

## Stores

| variable | default | what |
|---|---|---|
| `MONGODB_URI` | `mongodb://localhost:27017` | the agent's MongoDB |
| `QQ_STORE_TIMEOUT_MS` | `2000` | how long a store may take |
| `QQ_HTTPS` | off | served over HTTPS |
"""

README = """# qqweb

See [configuration](docs/configuration.md#stores) and [the stores](docs/configuration.md).
"""


def _repo(
    tmp_path: Path,
    *,
    settings: str = SETTINGS,
    configuration: str = CONFIGURATION,
    readme: str = README,
) -> Path:
    (tmp_path / "qqweb").mkdir()
    (tmp_path / "qqweb" / "settings.py").write_text(settings)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "configuration.md").write_text(configuration)
    (tmp_path / "README.md").write_text(readme)
    return tmp_path


def test_a_setting_missing_from_the_table_is_reported(tmp_path):
    problems = check_docs.check(_repo(tmp_path))

    assert len(problems) == 1
    assert "QQ_NEW_KNOB" in problems[0] and "not documented" in problems[0]


def test_a_documented_variable_no_setting_reads_is_reported(tmp_path):
    settings = SETTINGS.replace('QQ_NEW_KNOB = envint("QQ_NEW_KNOB", 7)\n', "")
    configuration = CONFIGURATION + "| `QQ_GONE` | `1` | removed long ago |\n"

    problems = check_docs.check(_repo(tmp_path, settings=settings, configuration=configuration))

    assert len(problems) == 1
    assert "QQ_GONE" in problems[0] and "no setting reads it" in problems[0]


def test_a_default_that_differs_from_the_code_is_reported(tmp_path):
    settings = SETTINGS.replace('QQ_NEW_KNOB = envint("QQ_NEW_KNOB", 7)\n', "")
    configuration = CONFIGURATION.replace("| `2000` |", "| `3000` |").replace("| off |", "| on |")

    problems = check_docs.check(_repo(tmp_path, settings=settings, configuration=configuration))

    assert len(problems) == 2
    assert any("QQ_STORE_TIMEOUT_MS" in p and "3000" in p for p in problems)
    assert any("QQ_HTTPS" in p for p in problems)


def test_a_broken_link_and_a_missing_anchor_are_reported(tmp_path):
    settings = SETTINGS.replace('QQ_NEW_KNOB = envint("QQ_NEW_KNOB", 7)\n', "")
    readme = (
        "# qqweb\n\nSee [security](docs/security.md), [the stores](docs/configuration.md#shops)"
        " and [the contract](../shared/qq-data-contract.md).\n\n"
        "```\n[not a link](nowhere.md)\n```\n\n"
        "![The Overview, its alt text\nover two lines](docs/img/overview.png) and `[code](x.md)`\n"
    )

    problems = check_docs.check(_repo(tmp_path, settings=settings, readme=readme))

    assert problems == [
        "README.md:3: docs/security.md: no such file",
        "README.md:3: docs/configuration.md#shops: no heading has the anchor #shops",
        "README.md:3: ../shared/qq-data-contract.md points outside the repository",
        "README.md:9: docs/img/overview.png: no such file",
    ]


def test_anchors_follow_githubs_slugs():
    text = (
        "# Security\n## The API's edge\n### Browser tests (`tests/browser/`)\n"
        "## Jobs, Celery and the reaper\n## Jobs, Celery and the reaper\n"
        "```\n# not a heading\n```\n"
    )

    assert check_docs.anchors(text) == {
        "security",
        "the-apis-edge",
        "browser-tests-testsbrowser",
        "jobs-celery-and-the-reaper",
        "jobs-celery-and-the-reaper-1",
    }


def test_the_repositorys_readme_and_docs_pass_the_check():
    assert check_docs.check(ROOT) == []
