"""A run in PEARL's release format (Kim et al., 2024): train.json, valid.json and test.json, each a JSON list of
records with PEARL's fields, field for field.

PEARL's dialogues open with the Seeker, and readers that build (context, response) pairs from even-length
prefixes rely on it: the recommender's turns before the seeker's first are left out of `dialogue` (synth's
scripted greeting), whatever the run did. Consecutive utterances of one speaker are joined, and synth's markup
(the end marker) is removed. synth's catalogs carry no director or cast: `gt_director` and `gt_cast` are empty,
and `gt_abstract` is the item description the recommender was shown.
"""

from __future__ import annotations

from itertools import groupby
from pathlib import Path
from typing import Any

from synth.data.mentions import clean_text
from synth.export.items import liked
from synth.export.splits import RunSplits, SplitFiles
from synth.records import DialogueRecord, Review
from synth.runs.folder import RunFolder

PEARL_PATTERN = "{split}.json"
PEARL_FIELDS = (
    "dialogue", "user_persona", "gt_movie_title", "seen_movie_titles", "gt_genre", "gt_director", "gt_cast",
    "gt_abstract", "user_id", "data_id",
)  # fmt: skip


def pearl_dialogue(record: DialogueRecord) -> tuple[list[str], int]:
    """PEARL's `dialogue`: "Seeker: ..." / "Recommender: ..." strings from the seeker's first utterance, one per
    turn of speech; and how many recommender utterances before it were left out."""
    turns = [(turn.role, clean_text(turn.text)) for turn in record.turns]
    turns = [(role, text) for role, text in turns if text]
    first = next((index for index, (role, _) in enumerate(turns) if role == "seeker"), len(turns))
    spoken = [(role, " ".join(text for _, text in run)) for role, run in groupby(turns[first:], key=lambda t: t[0])]
    return [f"{role.capitalize()}: {text}" for role, text in spoken], first


def pearl_object(record: DialogueRecord, run: RunFolder) -> dict[str, Any]:
    """One dialogue in PEARL's fields."""
    persona = record.persona
    general = persona.general if persona else []
    target = run.items.get(record.target_item.id, record.target_item)
    return {
        "dialogue": pearl_dialogue(record)[0],
        "user_persona": (persona.summary if persona and persona.summary else _review_lines(general, run)),
        "gt_movie_title": target.display,
        "seen_movie_titles": [run.title(review.item) for review in general],
        "gt_genre": ", ".join(target.genres),
        "gt_director": ", ".join(target.directors),
        "gt_cast": ", ".join(target.cast),
        "gt_abstract": target.description,
        "user_id": record.user_id,
        "data_id": record.id,
    }


def _review_lines(reviews: list[Review], run: RunFolder) -> str:
    return "\n".join(f"{'Liked' if liked(r) else 'Disliked'} {run.title(r.item)}: {r.text}".rstrip(": ") for r in reviews)


def export_pearl(run: RunFolder, folder: Path, splits: RunSplits) -> dict[str, Any]:
    """Write train.json, valid.json and test.json (the splits asked for) into `folder`; returns what the
    export's marker records."""
    dropped = 0
    with SplitFiles(folder, PEARL_PATTERN, splits.names) as files:
        for split, record in splits.records(run):
            dropped += pearl_dialogue(record)[1] > 0
            files.write(split, pearl_object(record, run))
    return {"opening_recommender_turns_left_out": dropped}
