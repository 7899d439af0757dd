"""A run in ReDial's format: JSON Lines conversations with "@id" movie mentions, `movieMentions`, and the
seeker questionnaire filled from the game's outcome; plus movies_with_mentions.csv.

ReDial ids are numbers: catalog ids that are all digits (MovieLens) are kept, others are numbered 1..N.
Questionnaire codes as in ReDial: suggested 0/1; seen 0 no, 1 yes, 2 did not say; liked 0 no, 1 yes, 2 did not say.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.export.items import known_items, liked
from synth.records import DialogueRecord
from synth.runs.folder import RunFolder

REDIAL_FILE = "dialogues.jsonl"
MOVIES_FILE = "movies_with_mentions.csv"
RECOMMENDER_WORKER_ID = 0  # the simulated recommender; seekers are numbered from 1 by first appearance
MIN_BARE_TITLE = 4  # a title without its year is tagged only when at least this long (not "Up", "It")


class MovieIds(dict[str, int]):
    """Catalog id -> ReDial movie id; an id the catalog lacks gets the next free number."""

    def __missing__(self, item: str) -> int:
        self[item] = max(self.values(), default=0) + 1
        return self[item]


def movie_ids(run: RunFolder) -> MovieIds:
    """MovieLens-style digit ids are kept, others numbered in sorted order."""
    if all(item.isdigit() for item in run.items):
        return MovieIds({item: int(item) for item in run.items})
    return MovieIds({item: number for number, item in enumerate(sorted(run.items), start=1)})


def redial_object(record: DialogueRecord, run: RunFolder, ids: MovieIds, worker: int) -> dict[str, Any]:
    """One conversation in ReDial's fields."""
    tagger = _tagger(record, run)
    mentioned: dict[str, None] = {}  # items in the order the dialogue names them
    messages = []
    for index, turn in enumerate(record.turns):
        text = tagger.tag(turn.text, mentioned, ids) if tagger else turn.text
        if turn.recommended_item:
            mentioned.setdefault(turn.recommended_item)
        sender = worker if turn.role == "seeker" else RECOMMENDER_WORKER_ID
        messages.append({"messageId": index, "text": text, "senderWorkerId": sender, "timeOffset": 0})
    answers = {str(ids[item]): _answers(record, item, run) for item in mentioned}
    return {
        "conversationId": record.id,
        "movieMentions": {str(ids[item]): run.title(item) for item in mentioned},
        "initiatorWorkerId": worker,
        "respondentWorkerId": RECOMMENDER_WORKER_ID,
        "messages": messages,
        "initiatorQuestions": answers,
        "respondentQuestions": answers,
    }


def export_redial(run: RunFolder, out_dir: Path) -> list[Path]:
    """Write OUT/dialogues.jsonl and OUT/movies_with_mentions.csv; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    ids = movie_ids(run)
    workers: dict[str, int] = {}
    mentions: Counter[str] = Counter()
    dialogues = out_dir / REDIAL_FILE
    with dialogues.open("w", encoding="utf-8") as out:
        for record in run.records():
            worker = workers.setdefault(record.user_id, len(workers) + 1)
            conversation = redial_object(record, run, ids, worker)
            mentions.update(conversation["movieMentions"].keys())
            out.write(json.dumps(conversation, ensure_ascii=False) + "\n")
    movies = out_dir / MOVIES_FILE
    by_number = {str(number): item for item, number in ids.items()}
    with movies.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["movieId", "movieName", "nbMentions", "itemId"])
        for number, count in sorted(mentions.items(), key=lambda pair: int(pair[0])):
            writer.writerow([number, run.title(by_number[number]), count, by_number[number]])
    return [dialogues, movies]


@dataclass
class _Tagger:
    """One regex over a dialogue's known titles, longest first; group i<n> stands for items[n]."""

    pattern: re.Pattern[str]
    items: list[str]

    def tag(self, text: str, mentioned: dict[str, None], ids: MovieIds) -> str:
        """`text` with each title replaced by "@id"; the items found are added to `mentioned`, in order."""

        def replace(match: re.Match[str]) -> str:
            item = self.items[int(match.lastgroup[1:])]  # type: ignore[index]
            mentioned.setdefault(item)
            return f"@{ids[item]}"

        return self.pattern.sub(replace, text)


def _tagger(record: DialogueRecord, run: RunFolder) -> _Tagger | None:
    """ "Title (Year)" matches in any case; a bare title only as written and when long enough."""
    spellings: dict[str, str] = {}
    for item_id in dict.fromkeys(known_items(record)):
        item = run.items.get(item_id)
        if item is None:
            continue
        spellings.setdefault(f"(?i:{re.escape(item.display)})", item_id)
        if item.year and len(item.title) >= MIN_BARE_TITLE:
            spellings.setdefault(re.escape(item.title), item_id)
    if not spellings:
        return None
    ordered = sorted(spellings, key=len, reverse=True)
    pattern = re.compile("|".join(rf"(?P<i{n}>(?<!\w){spelling}(?!\w))" for n, spelling in enumerate(ordered)))
    return _Tagger(pattern, [spellings[spelling] for spelling in ordered])


def _answers(record: DialogueRecord, item: str, run: RunFolder) -> dict[str, int]:
    """The seeker's questionnaire for one movie, from what happened in the game."""
    recommended = [t for t in record.turns if t.recommended_item == item and t.role == "recommender"]
    if recommended:
        accepted = item == record.target_item.id and record.outcome.accepted_target
        reviewed = record.persona is not None and any(r.item == item for r in record.persona.general)
        return {"suggested": 1, "seen": 1 if reviewed else (0 if accepted else 2), "liked": 1 if accepted else 0}
    review = next((r for r in record.persona.general if r.item == item), None) if record.persona else None
    if review is None:
        return {"suggested": 0, "seen": 2, "liked": 2}
    return {"suggested": 0, "seen": 1, "liked": int(liked(review))}
