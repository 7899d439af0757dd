"""A run in ReDial's format (Li et al., 2018), as the ReDial authors' loader, CRSLab's and UniCRS's converters
read it: {train,valid,test}_data.jsonl split by user, every title in the text tagged "@<6-digit id>", both
questionnaires, movies_with_mentions.csv, and movie_ids.csv mapping ReDial ids to catalog ids.

ReDial ids number the whole catalog from 100001 in catalog-id order, so two exports of runs on one catalog
share them. Questionnaire codes as in ReDial: suggested 0/1; seen 0 no, 1 yes, 2 did not say; liked 0 no,
1 yes, 2 did not say.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.data.mentions import TitleTagger, clean_text, dialogue_items
from synth.errors import SynthError
from synth.export.coverage import MentionCoverage, mention_facts
from synth.export.items import liked
from synth.export.splits import RunSplits, SplitFiles
from synth.records import DialogueRecord, Item
from synth.runs.folder import RunFolder

REDIAL_PATTERN = "{split}_data.jsonl"
MOVIES_FILE = "movies_with_mentions.csv"
MOVIE_IDS_FILE = "movie_ids.csv"
FIRST_ID = 100001  # the ReDial authors' loader takes a mention for a movie only when it has 5 or 6 digits
LAST_ID = 999999
RECOMMENDER_WORKER_ID = 0  # the simulated recommender; seekers are numbered from 1 by first appearance


def redial_ids(items: dict[str, Item]) -> dict[str, int]:
    """Catalog id -> ReDial id, numbered from FIRST_ID in catalog-id order (numbers as numbers)."""
    if len(items) > LAST_ID - FIRST_ID + 1:
        raise SynthError(f"the catalog has {len(items):,} items; ReDial's 6-digit ids number at most {LAST_ID - FIRST_ID + 1:,}")
    order = sorted(items, key=lambda i: (0, int(i), "") if i.isdigit() else (1, 0, i))
    return {item: number for number, item in enumerate(order, start=FIRST_ID)}


@dataclass
class _Said:
    """What one dialogue said about each item: who named it first, what the seeker answered to it."""

    first_by: dict[str, str]
    named_by_seeker: set[str]
    answers: dict[str, bool]  # recommended item -> the seeker accepted it


def redial_object(record: DialogueRecord, run: RunFolder, ids: dict[str, int], worker: int, number: int,
                  coverage: MentionCoverage | None = None) -> dict[str, Any]:
    """One conversation in ReDial's fields (plus `synthId`, the record's id)."""
    items = dialogue_items(record, run.items)
    tagger = TitleTagger(items, run.domain.short_titles)
    said = _Said({}, set(), _answers_to_recommendations(record))
    messages = []
    for turn in record.turns:
        text = clean_text(turn.text)
        if not text:
            continue
        clean = text
        text, mentions = tagger.tag(clean, lambda item: f"@{ids[item]}")
        if coverage is not None:
            coverage.add_utterance(clean, items, mentions)
        for item in (mention.item for mention in mentions):
            said.first_by.setdefault(item, turn.role)
            if turn.role == "seeker":
                said.named_by_seeker.add(item)
        sender = worker if turn.role == "seeker" else RECOMMENDER_WORKER_ID
        messages.append({"messageId": len(messages), "text": text, "senderWorkerId": sender, "timeOffset": 0})
    if coverage is not None:
        coverage.add_dialogue(record.id, len(said.first_by))
    mentioned = list(said.first_by)
    return {
        "conversationId": number,
        "movieMentions": {str(ids[item]): run.title(item) for item in mentioned},
        "initiatorWorkerId": worker,
        "respondentWorkerId": RECOMMENDER_WORKER_ID,
        "messages": messages,
        "initiatorQuestions": {str(ids[item]): _seeker_form(record, item, said) for item in mentioned},
        "respondentQuestions": {str(ids[item]): _recommender_form(record, item, said) for item in mentioned},
        "synthId": record.id,
    }


def export_redial(run: RunFolder, folder: Path, splits: RunSplits) -> dict[str, Any]:
    """Write the split files, movies_with_mentions.csv and movie_ids.csv into `folder`; returns what the
    export's marker records (the mention coverage)."""
    ids = redial_ids(run.items)
    workers: dict[str, int] = {}
    mentions: Counter[int] = Counter()
    coverage = MentionCoverage(short_titles=run.domain.short_titles)
    with SplitFiles(folder, REDIAL_PATTERN, splits.names) as files:
        for number, (split, record) in enumerate(splits.records(run), start=1):
            worker = workers.setdefault(record.user_id, len(workers) + 1)
            conversation = redial_object(record, run, ids, worker, number, coverage)
            mentions.update(int(movie) for movie in conversation["movieMentions"])
            files.write(split, conversation)
    by_number = {number: item for item, number in ids.items()}
    with (folder / MOVIES_FILE).open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["movieId", "movieName", "nbMentions", "itemId"])
        for number, count in sorted(mentions.items()):
            writer.writerow([number, run.title(by_number[number]), count, by_number[number]])
    with (folder / MOVIE_IDS_FILE).open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["movieId", "itemId", "movieName"])
        for item, number in ids.items():
            writer.writerow([number, item, run.title(item)])
    return {"mentions": mention_facts(coverage)}


def _answers_to_recommendations(record: DialogueRecord) -> dict[str, bool]:
    answers: dict[str, bool] = {}
    pending: str | None = None
    for turn in record.turns:
        if turn.role == "recommender" and turn.recommended_item:
            pending = turn.recommended_item
        elif turn.role == "seeker" and pending is not None and turn.accepted is not None:
            answers[pending] = turn.accepted
            pending = None
    return answers


def _review(record: DialogueRecord, item: str) -> bool | None:
    """The persona's verdict on an item it reviewed (liked or not), None for an item it did not review."""
    review = next((r for r in record.persona.general if r.item == item), None) if record.persona else None
    return None if review is None else liked(review)


def _seeker_form(record: DialogueRecord, item: str, said: _Said) -> dict[str, int]:
    """The seeker's questionnaire: what the seeker knows (its own reviews), and what it answered."""
    verdict = _review(record, item)
    accepted = said.answers.get(item)
    suggested = int(said.first_by.get(item) == "recommender" or item in said.answers)
    if verdict is not None:
        return {"suggested": suggested, "seen": 1, "liked": int(verdict)}
    if accepted is not None:
        return {"suggested": suggested, "seen": 0 if accepted else 2, "liked": int(accepted)}
    return {"suggested": suggested, "seen": 2, "liked": 2}


def _recommender_form(record: DialogueRecord, item: str, said: _Said) -> dict[str, int]:
    """The recommender's questionnaire: only what the dialogue told it. The seeker's answer to a suggestion says
    whether it liked it; a movie the seeker named itself was seen, and its view of it is the seeker's review."""
    suggested = int(said.first_by.get(item) == "recommender" or item in said.answers)
    accepted = said.answers.get(item)
    if accepted is not None:
        return {"suggested": suggested, "seen": 2, "liked": int(accepted)}
    verdict = _review(record, item)
    if item in said.named_by_seeker and verdict is not None:
        return {"suggested": suggested, "seen": 1, "liked": int(verdict)}
    return {"suggested": suggested, "seen": 2, "liked": 2}
