"""Write tests/fixtures/golden_minilm_st.npz: sentence-transformers' own vectors for the
packaged all-MiniLM-L6-v2, the reference the numpy encoder is checked against in every
default test run (tests/memory_app/test_embeddings_golden.py), so that check needs no
torch. Needs the ``torch`` extra (sentence-transformers, torch):

    uv sync --frozen --extra dev --extra torch
    .venv/bin/python scripts/golden_minilm.py

The texts are what the encoder meets, and where it could go wrong: queries and notes as
the agent writes them, texts longer than the model's 256 word pieces (truncation), accents,
scripts without spaces, emoji, control and zero-width characters, empty and blank texts,
code, URLs, JSON, markdown. sentence-transformers encodes them with ``encode``'s defaults
(batches of 32, the model's own Normalize module: unit vectors); the file
holds the texts, the float32 vectors and the versions that made them. Run it again (and
commit the file) only when the model package changes: a new torch or sentence-transformers
should give the same vectors within float32 rounding, which ``make test-torch`` checks
live.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "golden_minilm_st.npz"

_LONG_LOG = " ".join(
    f"Step {i}: the agent archived note_{i:04d} after its importance decayed to 0.{i % 10}."
    for i in range(60)
)
_LONG_PROSE = (
    "The user's team moved the billing service from a single Postgres instance to a "
    "sharded MongoDB cluster over the winter. Priya led the migration; Marco wrote the "
    "dual-write layer and the reconciliation job that compared both stores every night. "
    "They kept Postgres as the source of truth until the reconciliation had shown no "
    "difference for thirty days in a row, then switched reads first and writes a week "
    "later. The cut-over took forty minutes of read-only mode on a Sunday morning. "
) * 4

TEXTS = [
    # queries, short
    "where are the vectors stored?",
    "who prefers Postgres",
    "ok",
    "a",
    "?",
    "Lisbon",
    # notes as the agent writes them
    "The user prefers short answers and dark mode in every editor.",
    "Decided on 2024-05-01: project Lumen stores its vectors in MongoDB, not Postgres.",
    "Priya reviews pull requests on Fridays; ask her before merging schema changes.",
    "Deploys go through the staging cluster first (k8s, namespace lumen-staging).",
    "The user lives in Lisbon, Portugal",
    "The user's home is in Lisbon",
    "Kubernetes schedules containers onto nodes",
    "User is allergic to peanuts and shellfish; avoid suggesting Thai takeaway.",
    "Meeting notes 2025-04-19 17:25 — Aiko: ship v2.3 on Thursday; Lars: wait for QA.",
    # case, punctuation and spacing (the tokenizer lower-cases and splits punctuation)
    "THE USER PREFERS SHORT ANSWERS AND DARK MODE IN EVERY EDITOR.",
    "the   user\tprefers\nshort answers\r\nand dark mode",
    "   leading and trailing spaces   ",
    "!!!???...,,,;;;",
    "e-mail, e.mail, e_mail, email; re-run/rerun (re)run",
    # numbers, code, URLs, structured text
    "3.14159 2.71828 1e-12 -42 0x1F 1,000,000 12:30:45",
    "def note_archive(*, note_id: str) -> None:\n    store.archive(note_id)",
    "SELECT id, text FROM notes WHERE importance > 0.5 ORDER BY created_at DESC;",
    "https://example.com/memory/notes?id=note_0042&view=full#history",
    '{"type": "fact", "content": "likes tea", "metadata": {"source": "chat"}}',
    "# Heading\n\n- item **bold** and _italic_\n- [link](https://example.org)",
    # unicode: accents (stripped by the tokenizer), other scripts, emoji, odd characters
    "Café naïve résumé — Zürich, São Paulo, Kraków 🚀🎉 日本語のテキスト Привет",
    "Ångström, Øresund, Æsir, ß, Ĳssel, ﬁnance (ligature)",
    "用户喜欢简短的回答和深色模式。",
    "ユーザーは短い回答とダークモードを好みます。",
    "사용자는 짧은 답변과 다크 모드를 선호합니다.",
    "المستخدم يفضل الإجابات القصيرة",
    "Ο χρήστης προτιμά σύντομες απαντήσεις",  # noqa: RUF001 - Greek, on purpose
    "🙂🙃😉 👍🏽 👨‍👩‍👧 🇵🇹",
    "zero\u200bwidth\u200bspace and soft\u00adhyphen and non\u00a0breaking",
    "control\x00char\x07bell\x1bescape",
    # empty and blank: sentence-transformers encodes them as [CLS] [SEP]
    "",
    " ",
    "\n\t\n",
    # longer than the model's 256 word pieces: truncated
    _LONG_LOG,
    _LONG_PROSE,
    "word " * 600,
    "🚀" * 300,  # one "word" over 100 characters: a single [UNK]
    "日本語のテキスト、" * 60,  # each ideograph a word piece: truncated
]


def main() -> None:
    from sentence_transformers import SentenceTransformer  # the torch extra

    sys.path.insert(0, str(ROOT))
    from qqweb.lib.embeddings import SentenceTransformerEmbedder

    model_dir = SentenceTransformerEmbedder("all-MiniLM-L6-v2")._resolve_path()
    model = SentenceTransformer(model_dir, device="cpu")
    vectors = np.asarray(
        model.encode(TEXTS, convert_to_numpy=True, show_progress_bar=False), dtype=np.float32
    )
    truncated = [len(model.tokenizer(text)["input_ids"]) > model.max_seq_length for text in TEXTS]
    versions = {
        name: __import__(name).__version__
        for name in ("sentence_transformers", "torch", "transformers", "tokenizers")
    }
    np.savez_compressed(
        OUT,
        texts=np.asarray(TEXTS),
        vectors=vectors,
        truncated=np.asarray(truncated),
        max_seq_length=np.asarray(model.max_seq_length),
        versions=np.asarray([f"{k}=={v}" for k, v in versions.items()]),
    )
    print(
        f"{OUT.relative_to(ROOT)}: {len(TEXTS)} texts ({sum(truncated)} truncated at "
        f"{model.max_seq_length} word pieces), {vectors.shape[1]}-d float32; "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
    )


if __name__ == "__main__":
    main()
