"""A run as a PEARL-style JSON list: "Seeker: ..." / "Recommender: ..." strings, persona and target title."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from synth.export.items import liked
from synth.records import DialogueRecord, Review
from synth.runs.folder import RunFolder

PEARL_FILE = "dialogues.json"


def pearl_object(record: DialogueRecord, run: RunFolder) -> dict[str, Any]:
    """One dialogue in PEARL's fields (`dialogue`, `user_persona`, `gt_movie_title`, `seen_movie_titles`) plus
    synth's ids, outcome and structured persona reviews."""
    persona = record.persona
    reviews = ([("general", r) for r in persona.general] + [("target", persona.target)]) if persona else []
    return {
        "id": record.id,
        "user_id": record.user_id,
        "dialogue": [f"{turn.role.capitalize()}: {turn.text}" for turn in record.turns],
        "user_persona": "\n".join(_persona_line(review, run) for kind, review in reviews if kind == "general"),
        "gt_movie_title": record.target_item.display,
        "seen_movie_titles": [run.title(r.item) for kind, r in reviews if kind == "general"],
        "persona_reviews": [
            {"kind": kind, "title": run.title(r.item), "score": r.score, "review": r.text} for kind, r in reviews
        ],
        "accepted_target": record.outcome.accepted_target,
        "turns_to_goal": record.outcome.turns_to_goal,
    }


def _persona_line(review: Review, run: RunFolder) -> str:
    verdict = "Liked" if liked(review) else "Disliked"
    return f"{verdict} {run.title(review.item)}: {review.text}"


def export_pearl(run: RunFolder, out_dir: Path) -> list[Path]:
    """Write OUT/dialogues.json (a JSON list, as PEARL ships), one dialogue at a time; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / PEARL_FILE
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for index, record in enumerate(run.records()):
            out.write(("," if index else "") + "\n" + json.dumps(pearl_object(record, run), ensure_ascii=False))
        out.write("\n]\n")
    return [path]
