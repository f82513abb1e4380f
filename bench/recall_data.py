"""LoCoMo's conversations and questions as the qq agent would hold them, for the recall
benchmark (bench/recall.py): each dialogue turn a note in the agent's shape, each question
pinned to the notes of its evidence turns.

The data: LoCoMo (Maharana et al. 2024, "Evaluating Very Long-Term Conversational Memory of
LLM Agents"), ``data/locomo10.json`` of snap-research/LoCoMo, fetched beforehand with the
search tool's ``fetch`` into ``--mirror`` and checked against the sha256 below. Its
licence is CC BY-NC 4.0: nothing of it is committed, only this script, the checksum and
the figures. 10 conversations between two people, 19-32 sessions each over 6 to 12 months,
5,882 turns, 1,986 questions whose ``evidence`` names the turns (``D<session>:<turn>``)
that answer them.

**A turn is a note** (not LoCoMo's ``observation`` lists, the facts an LLM drew from each
session): the observations cover the evidence of only 1,302 of the 1,540 questions kept
(85%), so a figure on them would mix what the extraction dropped with what retrieval
misses; every evidence turn is a note, so the figures measure the agent's retrieval and
curation alone. A turn's note is ``"<speaker>: <text>"`` (the agent's notes say who said
it), and ``[shares a photo: <caption>]`` when the turn shared an image (LoCoMo's BLIP
caption: the image is part of what was said). Section ``Key Topics`` (weight 0),
importance the agent's own scorer (``score_content``: 0.3 plus its pattern bonuses), decay
rate 0.01, never accessed, source a conversation (``session:<conversation>:<n>``).

**Ages**: LoCoMo dates each session; "now" is the last session, so a turn said 40 days
before the last session was created 40 days before the moment the notes are loaded
(turn ``i`` of a session ``i`` seconds after its start), as the agent would hold the
memory right after that last session.

**Pins**: every question of categories 1-4 (multi-hop, temporal, open-domain, single-hop)
with at least one evidence turn found; category 5 (adversarial: the answer is that the
conversation does not say) is left out, its "evidence" being turns that look related.
Evidence ids are read leniently (``"D8:6; D9:17"``, ``"D:11:26"``, ``"D30:05"``); an id
naming no turn is dropped, a question left with none is skipped and counted.

    .venv/bin/python bench/recall_data.py --mirror /work/.mirror
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.judgment_data import Source, read_source
from memory_app.notes.lib.importance import score_content

SOURCE = Source(
    "snap-research/LoCoMo",
    "data/locomo10.json",
    "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
)
SECTION = "Key Topics"
DECAY_RATE = 0.01
KEPT_CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_SESSION = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


@dataclass(frozen=True)
class Turn:
    conversation: str  # LoCoMo's sample_id, "conv-26"
    dia_id: str  # "D1:3"
    session: int
    index: int  # 0-based, within its session
    speaker: str
    text: str
    at: datetime  # when it was said (its session's date, plus ``index`` seconds)


@dataclass(frozen=True)
class Question:
    conversation: str
    text: str
    category: int
    evidence: tuple[str, ...]  # dia_ids, as found in the conversation


@dataclass
class Pins:
    """Each kept question pinned to its evidence notes, and what was left out."""

    pinned: list[tuple[Question, tuple[str, ...]]] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)  # why -> how many


def parse_when(text: str) -> datetime:
    """LoCoMo's session date, ``"1:56 pm on 8 May, 2023"``."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")


def turns_of(sample: dict[str, Any]) -> list[Turn]:
    """Every turn of a conversation, in order, dated by its session."""
    conversation = sample["conversation"]
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conversation
        if (m := _SESSION.fullmatch(key)) and isinstance(conversation[key], list)
    )
    turns = []
    for number, key in sessions:
        start = parse_when(conversation[f"{key}_date_time"])
        for index, turn in enumerate(conversation[key]):
            text = str(turn.get("text", "")).strip()
            caption = str(turn.get("blip_caption") or "").strip()
            if caption:
                text = f"{text} [shares a photo: {caption}]".strip()
            turns.append(
                Turn(
                    conversation=sample["sample_id"],
                    dia_id=turn["dia_id"],
                    session=number,
                    index=index,
                    speaker=turn["speaker"],
                    text=f"{turn['speaker']}: {text}",
                    at=start + timedelta(seconds=index),
                )
            )
    return turns


def note_id(namespace: str, conversation: str, dia_id: str) -> str:
    """The turn's note id in the agent's form (``note_`` + 12 hex), stable per namespace
    (one per memory the benchmark loads, so two loads never share a review pair)."""
    digest = hashlib.sha256(f"{namespace}:{conversation}:{dia_id}".encode()).hexdigest()
    return f"note_{digest[:12]}"


def note_documents(
    turns: list[Turn], *, now: datetime, namespace: str, aged: bool = True
) -> list[dict[str, Any]]:
    """The turns as the agent writes its notes (without ``embedding``: the caller adds
    the model's vectors). ``aged``: the last turn said is ``now`` and every other one as
    long before it as LoCoMo dates it; otherwise every note was written ``now``."""
    last = max(t.at for t in turns)
    docs = []
    for turn in turns:
        created = now - (last - turn.at) if aged else now
        docs.append(
            {
                "note_id": note_id(namespace, turn.conversation, turn.dia_id),
                "content": turn.text,
                "section": SECTION,
                "metadata": {},
                "importance": score_content(turn.text, SECTION),
                "decay_rate": DECAY_RATE,
                "access_count": 0,
                "created_at": created,
                "updated_at": created,
                "last_accessed": None,
                "source": {
                    "source_type": "conversation",
                    "session_id": f"{turn.conversation}:session_{turn.session}",
                    "agent_id": "",
                    "timestamp": created.isoformat() + "+00:00",
                    "source_id": f"session:{turn.conversation}:{turn.session}",
                },
            }
        )
    return docs


def evidence_ids(raw: Iterable[str]) -> tuple[str, ...]:
    """LoCoMo's evidence entries as dia_ids, each once, in order: an entry may hold
    several (``"D8:6; D9:17"``) or be misspelled (``"D:11:26"``, ``"D30:05"``)."""
    found: list[str] = []
    for entry in raw:
        for session, turn in _EVIDENCE.findall(str(entry)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id not in found:
                found.append(dia_id)
    return tuple(found)


def questions_of(sample: dict[str, Any]) -> list[Question]:
    return [
        Question(
            conversation=sample["sample_id"],
            text=str(qa["question"]),
            category=int(qa["category"]),
            evidence=evidence_ids(qa.get("evidence") or []),
        )
        for qa in sample["qa"]
    ]


def pins_of(questions: list[Question], notes_by_dia: dict[str, str]) -> Pins:
    """Each question of a kept category pinned to the notes (``notes_by_dia``: dia_id ->
    note id) of its evidence turns; questions of category 5, and those whose evidence
    names no turn, are counted in ``left_out``."""
    pins = Pins()
    for question in questions:
        if question.category not in KEPT_CATEGORIES:
            why = f"category {question.category}"
        else:
            notes = tuple(notes_by_dia[d] for d in question.evidence if d in notes_by_dia)
            if notes:
                pins.pinned.append((question, notes))
                continue
            why = "no evidence turn found"
        pins.left_out[why] = pins.left_out.get(why, 0) + 1
    return pins


def load(mirror: Path) -> list[dict[str, Any]]:
    """The ten conversations, after their checksum matched (exits naming the ``fetch``
    to run when the repository is not on this machine)."""
    data: list[dict[str, Any]] = json.loads(read_source(mirror, SOURCE))
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    samples = load(args.mirror)
    for sample in samples:
        turns = turns_of(sample)
        by_dia = {t.dia_id: t.dia_id for t in turns}
        pins = pins_of(questions_of(sample), by_dia)
        print(
            f"{sample['sample_id']}: {len(turns)} turns, "
            f"{len({t.session for t in turns})} sessions "
            f"({min(t.at for t in turns):%Y-%m-%d} to {max(t.at for t in turns):%Y-%m-%d}), "
            f"{len(pins.pinned)} questions pinned, left out {pins.left_out}"
        )
    print(f"{SOURCE.repo}:{SOURCE.path} sha256 {SOURCE.sha256}")


if __name__ == "__main__":
    main()
