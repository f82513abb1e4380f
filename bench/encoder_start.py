"""The embedding model at start-up: the numpy encoder against sentence-transformers (torch).
Needs the `torch` extra: run it with the environment `make test-torch` makes,
`.venv-torch/bin/python bench/encoder_start.py` (or `uv sync --frozen --extra dev --extra torch`).

    .venv/bin/python bench/encoder_start.py                 # 3 fresh processes per engine
    .venv/bin/python bench/encoder_start.py --repeats 5 --skip-encode

1. From a fresh process to its first encoded query (what a web worker pays before its
   first search): a subprocess per engine and repeat, alternating, timed from spawn to the
   vector (Python start-up, imports, weights, the first encode).
2. Encoding in a warm process: 1 query (median of 20) and a batch of 64 note-length texts
   (median of 3), numpy against torch, on the same texts.

Every figure is printed with the 1-minute load average beside it (the machine is shared).
Results go to bench/results/encoder_start.json. Runs here (2 cores, peak RSS 1.4 GB):

    first vector from a fresh process, median of 3: numpy 3.85 s, torch 42.32 s, 11.0x  (load 7.56)
    encode 1 query: numpy 322.0 ms, torch 318.1 ms, torch/numpy 0.99x  (load 5.58)
    encode 64 notes: numpy 3315.1 ms, torch 2804.4 ms, torch/numpy 0.85x  (load 5.53)
    max abs difference over the 64 notes: 2.2e-07

and with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ... --skip-start:

    encode 1 query: numpy 22.4 ms, torch 27.1 ms, torch/numpy 1.21x  (load 5.52)
    encode 64 notes: numpy 3205.7 ms, torch 2443.1 ms, torch/numpy 0.76x  (load 5.07)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUERY = "where does project Lumen store its vectors?"
CHILD = (
    "from qqweb.lib.embeddings import SentenceTransformerEmbedder\n"
    "e = SentenceTransformerEmbedder('all-MiniLM-L6-v2', engine={engine!r})\n"
    "v = e.embed([{query!r}])\n"
    "assert v.shape == (1, 384) and e.engine == {engine!r}, e.engine\n"
)


def load() -> float:
    return round(os.getloadavg()[0], 2)


def notes(n: int) -> list[str]:
    """Agent-style notes of 40-90 word pieces."""
    topics = ["MongoDB", "the staging cluster", "Priya's reviews", "dark mode", "the archive"]
    return [
        f"Note {i}: the user decided that {topics[i % 5]} should be checked before each "
        f"release of project Lumen; last time ({2020 + i % 5}-0{1 + i % 9}-1{i % 10}) "
        f"it caught {i % 7 + 1} problems. " * (1 + i % 2)
        for i in range(n)
    ]


def first_vector(engine: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", CHILD.format(engine=engine, query=QUERY)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def bench_start(repeats: int) -> dict[str, object]:
    runs: dict[str, list[tuple[float, float]]] = {"numpy": [], "torch": []}
    for _ in range(repeats):
        for engine in runs:
            seconds = first_vector(engine)
            runs[engine].append((round(seconds, 2), load()))
            print(f"  fresh process -> first vector, {engine}: {seconds:.2f} s  (load {load()})")
    medians = {e: statistics.median(s for s, _ in r) for e, r in runs.items()}
    ratio = medians["torch"] / medians["numpy"]
    print(
        f"first vector from a fresh process, median of {repeats}: numpy {medians['numpy']:.2f} s,"
        f" torch {medians['torch']:.2f} s, {ratio:.1f}x  (load {load()})"
    )
    return {"runs": runs, "median_s": medians, "ratio_torch_over_numpy": round(ratio, 1)}


def timed(encode, texts: list[str], repeats: int) -> float:  # type: ignore[no-untyped-def]
    encode(texts)  # warm
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        encode(texts)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bench_encode() -> dict[str, object]:
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from qqweb.lib.embeddings import SentenceTransformerEmbedder
    from qqweb.lib.embeddings_numpy import NumpyBertEncoder

    model_dir = SentenceTransformerEmbedder("all-MiniLM-L6-v2")._resolve_path()
    ours = NumpyBertEncoder(model_dir)
    theirs = SentenceTransformer(model_dir, device="cpu")

    def torch_encode(texts: list[str]) -> np.ndarray:
        return theirs.encode(texts, batch_size=64, normalize_embeddings=True)

    out: dict[str, object] = {}
    batch = notes(64)
    pieces = [len(ours.tokenizer.encode(t).ids) for t in batch]
    print(f"  64 notes of {min(pieces)}-{max(pieces)} word pieces (with [CLS]/[SEP])")
    for name, texts, repeats in (("1 query", [QUERY], 20), ("64 notes", batch, 3)):
        numpy_s = timed(ours.encode, texts, repeats)
        torch_s = timed(torch_encode, texts, repeats)
        ratio = torch_s / numpy_s
        print(
            f"encode {name}: numpy {numpy_s * 1000:.1f} ms, torch {torch_s * 1000:.1f} ms,"
            f" torch/numpy {ratio:.2f}x  (load {load()})"
        )
        out[name] = {
            "numpy_ms": round(numpy_s * 1000, 1),
            "torch_ms": round(torch_s * 1000, 1),
            "ratio_torch_over_numpy": round(ratio, 2),
            "load": load(),
        }
    difference = float(np.abs(ours.encode(batch) - torch_encode(batch)).max())
    print(f"  max abs difference over the 64 notes: {difference:.1e}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-start", action="store_true")
    parser.add_argument("--skip-encode", action="store_true")
    args = parser.parse_args()
    threads = {
        k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS") if k in os.environ
    }
    print(f"cpus {os.cpu_count()}, thread settings {threads or 'default'}  (load {load()})")
    results: dict[str, object] = {"threads": threads, "cpus": os.cpu_count()}
    if not args.skip_start:
        results["first_vector"] = bench_start(args.repeats)
    if not args.skip_encode:
        results["encode"] = bench_encode()
    target = ROOT / "bench" / "results" / "encoder_start.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
