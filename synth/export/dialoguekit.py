"""A run as DialogueKit's annotated dialogues plus a MovieLens-style item collection and ratings, the files
UserSimCRS (Bernard & Balog) configures its simulators with.

Dialogues: `{split}_dialogues.json` per split and `all_dialogues.json` (every split), each a JSON list that
`dialoguekit.utils.dialogue_reader.json_to_dialogues` (DialogueKit 0.1.1) reads; the names are those
UserSimCRS's converters write (scripts/datasets/redial/redial_to_dialoguekit.py,
scripts/datasets/inspired/inspired_to_dialoguekit.py), "validation" shortened to "valid" as in every synth export.
Each dialogue is `{"conversation_id": record id, "agent": {"id": "synth-recommender", "type": "AGENT"},
"user": {"id": the seeker's user id, "type": "USER"}, "conversation": [...], "metadata": {"target_item",
"ended_by"}}`. One utterance per turn, its text without synth's markup (`clean_text`); a turn left empty by
that is left out. The seeker is USER, the recommender AGENT.

Annotations: every title the text names (`TitleTagger` on the dialogue's items) is a slot-value annotation
["TITLE", title, start, end]: the slot UserSimCRS's movie domains and its `domain_mapping` give titles
(config/default/config_default.yaml, data/domains/movies.yaml), the value the item's title as in movies.csv
("Heat (1995)"), start/end the characters of the utterance that name it (quotes and year included when
written). Intents only where synth knows the act, in IARD's codes that UserSimCRS's redial_v1 / iard_v1
interaction models use: the recommender's suggestion of `turn.recommended_item` is "REC-S", the seeker's
answer to it "ACC" or "REJ" (`turn.accepted`); the suggested title's annotations go with that act, other
mentions form a dialogue act without an intent. An utterance that names items has `metadata.item_ids`,
the catalog ids of its annotations in their order.

Items and ratings, as UserSimCRS reads MovieLens (usersimcrs/items/item_collection.py, usersimcrs/items/
ratings.py, data/item_collections/movielens-25m-sample/): `movies.csv` with movieId,title,genres for the
whole catalog (genres "|"-separated; configure `id_col: movieId` and map title and genres, no keywords), and
`ratings.csv` with userId,movieId,rating,timestamp from the personas' reviews (general and target), one row
per user and item (the first review met). The rating is the review's 0-1 score on MovieLens' 0.5-5 scale
(0.5 + 4.5 * score), the range `Ratings.load_ratings_csv` assumes by default, so it normalises back to the
score exactly; the timestamp is empty (synth's reviews have no time). Reviews without a score or of items
outside the catalog are left out and counted.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from synth.data.dialoguekit import TITLE_SLOT
from synth.data.mentions import Mention, TitleTagger, clean_text, dialogue_items
from synth.errors import SynthError
from synth.export.coverage import MentionCoverage, mention_facts
from synth.export.splits import RunSplits, SplitFiles
from synth.records import DialogueRecord, Item, Turn
from synth.runs.folder import RunFolder

DIALOGUEKIT_PATTERN = "{split}_dialogues.json"
ALL_SPLITS = "all"
MOVIES_FILE = "movies.csv"
RATINGS_FILE = "ratings.csv"
AGENT_ID = "synth-recommender"
RECOMMEND, ACCEPT, REJECT = "REC-S", "ACC", "REJ"
NO_GENRES = "(no genres listed)"  # MovieLens' genres for an item without any
LOW_STARS, HIGH_STARS = 0.5, 5.0


def dialoguekit_object(
    record: DialogueRecord, run: RunFolder, coverage: MentionCoverage | None = None
) -> dict[str, Any]:
    """One dialogue in DialogueKit's JSON fields."""
    items = dialogue_items(record, run.items)
    tagger = TitleTagger(items, run.domain.short_titles)
    mentioned: set[str] = set()
    conversation = []
    suggested: str | None = None  # the recommender's last suggestion, which a seeker's answer is about
    for turn in record.turns:
        suggested = turn.recommended_item or suggested
        text = clean_text(turn.text)
        if not text:
            continue
        mentions = tagger.find(text)
        if coverage is not None:
            coverage.add_utterance(text, items, mentions)
        mentioned.update(m.item for m in mentions)
        conversation.append(_utterance(turn, text, mentions, suggested, run.items))
    if coverage is not None:
        coverage.add_dialogue(record.id, len(mentioned))
    return {
        "conversation_id": record.id,
        "agent": {"id": AGENT_ID, "type": "AGENT"},
        "user": {"id": record.user_id, "type": "USER"},
        "conversation": conversation,
        "metadata": {"target_item": record.target_item.id, "ended_by": record.outcome.ended_by},
    }


def _utterance(
    turn: Turn, text: str, mentions: list[Mention], suggested: str | None, catalog: dict[str, Item]
) -> dict[str, Any]:
    """An utterance with its dialogue acts: the act synth knows (if any) with the mentions of the suggested
    item, then the other mentions without an intent."""
    intent = _intent(turn)
    own = [m for m in mentions if intent and m.item == suggested]
    rest = [m for m in mentions if m not in own]
    acts: list[tuple[str | None, list[Mention]]] = [(intent, own)] if intent else []
    acts += [(None, rest)] if rest else []
    utterance: dict[str, Any] = {"participant": "USER" if turn.role == "seeker" else "AGENT", "utterance": text}
    if acts:
        utterance["dialogue_acts"] = [
            {**({"intent": name} if name else {}), "slot_values": [_slot(m, catalog) for m in found]}
            for name, found in acts
        ]
    if mentions:
        utterance["metadata"] = {"item_ids": [m.item for _, found in acts for m in found]}
    return utterance


def _intent(turn: Turn) -> str | None:
    if turn.role == "recommender":
        return RECOMMEND if turn.recommended_item else None
    return None if turn.accepted is None else ACCEPT if turn.accepted else REJECT


def _slot(mention: Mention, catalog: dict[str, Item]) -> list[Any]:
    return [TITLE_SLOT, catalog[mention.item].display, mention.start, mention.end]


def export_dialoguekit(run: RunFolder, folder: Path, splits: RunSplits) -> dict[str, Any]:
    """Write the split files, all_dialogues.json, movies.csv and ratings.csv into `folder`; returns what the
    export's marker records (the mention coverage and the ratings written and left out)."""
    if ALL_SPLITS in splits.names:
        raise SynthError(f"a split named '{ALL_SPLITS}' would share {DIALOGUEKIT_PATTERN.format(split=ALL_SPLITS)}")
    coverage = MentionCoverage(short_titles=run.domain.short_titles)
    ratings: dict[tuple[str, str], float] = {}
    left_out = 0
    with SplitFiles(folder, DIALOGUEKIT_PATTERN, [*splits.names, ALL_SPLITS]) as files:
        for split, record in splits.records(run):
            conversation = dialoguekit_object(record, run, coverage)
            files.write(split, conversation)
            files.write(ALL_SPLITS, conversation)
            left_out += _add_ratings(record, run.items, ratings)
    _write_movies(folder / MOVIES_FILE, run.items)
    with (folder / RATINGS_FILE).open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["userId", "movieId", "rating", "timestamp"])
        writer.writerows([user, item, rating, ""] for (user, item), rating in ratings.items())
    return {"mentions": mention_facts(coverage), "ratings": len(ratings), "ratings_left_out": left_out}


def stars(score: float) -> float:
    """A 0-1 score on MovieLens' 0.5-5 star scale."""
    return round(LOW_STARS + (HIGH_STARS - LOW_STARS) * score, 3)


def _add_ratings(record: DialogueRecord, catalog: dict[str, Item], ratings: dict[tuple[str, str], float]) -> int:
    """Add the persona's reviews (first one per user and item kept); returns how many could not be rated."""
    if record.persona is None:
        return 0
    left_out = 0
    for review in [*record.persona.general, record.persona.target]:
        if review.score is None or review.item not in catalog:
            left_out += 1
        else:
            ratings.setdefault((record.user_id, review.item), stars(review.score))
    return left_out


def _write_movies(path: Path, catalog: dict[str, Item]) -> None:
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["movieId", "title", "genres"])
        writer.writerows([item.id, item.display, "|".join(item.genres) or NO_GENRES] for item in catalog.values())
