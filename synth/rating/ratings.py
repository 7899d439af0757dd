"""The ratings raters send back (the JSON Lines their page saves), read and checked against the round's key: a
line whose round, rater, item, criteria, categories or turns do not match the key is refused with one line naming
the file, the line and the field."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from synth.data.bad_lines import BadLines
from synth.data.readers import read_json_lines, validate
from synth.errors import InputError
from synth.rating.key import Key

Choice = Literal["left", "right", "tie"]
SOUND = "sound"  # the verdict on the whole dialogue, among a defect rating's verdicts


class HeadToHeadRating(BaseModel):
    """One rater's choice per criterion for one pair of dialogues."""

    model_config = ConfigDict(extra="forbid")
    round: str
    rater: str
    item: str
    choices: dict[str, Choice]

    def verdicts(self, key: Key) -> dict[str, Hashable]:
        """Per criterion: 'first' or 'second' (whichever of the pair's sources was given first or second to
        `synth rate pages`), or 'tie'."""
        shown = key.items[self.item].sources
        first = min(shown, key=list(key.sources).index)
        picked = {name: shown[0 if choice == "left" else 1] for name, choice in self.choices.items() if choice != "tie"}
        return {name: "tie" if name not in picked else "first" if picked[name] == first else "second"
                for name in self.choices}


class DefectRating(BaseModel):
    """One rater's verdict on one dialogue: sound or not, the turns marked per category (1-based), notes per turn."""

    model_config = ConfigDict(extra="forbid")
    round: str
    rater: str
    item: str
    sound: StrictBool
    defects: dict[str, list[int]] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)

    def verdicts(self, key: Key) -> dict[str, Hashable]:
        """Sound or not, and per category whether some turn was marked with it."""
        return {SOUND: self.sound} | {name: bool(self.defects.get(name)) for name in key.criteria}


Rating = HeadToHeadRating | DefectRating


@dataclass(frozen=True)
class Where:
    path: Path
    line: int


def read_ratings(paths: list[Path], key: Key) -> list[Rating]:
    """Every rating in `paths`, each checked against `key`; an item rated twice by one rater is refused."""
    model = HeadToHeadRating if key.protocol == "head-to-head" else DefectRating
    seen: dict[tuple[str, str], Where] = {}
    ratings: list[Rating] = []
    for path in paths:
        for line, raw in read_json_lines(path, BadLines()):
            rating = validate(model, raw, path, line)
            _check(rating, key, path, line)
            first = seen.setdefault((rating.rater, rating.item), Where(path, line))
            if first != Where(path, line):
                raise InputError(path, f"{rating.rater} rated item {rating.item} before ({first.path}, line "
                                 f"{first.line})", line=line, field="item")
            ratings.append(rating)
    return ratings


def _check(rating: Rating, key: Key, path: Path, line: int) -> None:
    def refuse(message: str, field: str) -> InputError:
        return InputError(path, message, line=line, field=field)

    if rating.round != key.round:
        raise refuse(f"from another round ('{rating.round}'; this key's is '{key.round}')", "round")
    if rating.rater not in key.raters:
        raise refuse(f"no rater '{rating.rater}' in the key (its raters: {', '.join(key.raters)})", "rater")
    if rating.item not in key.raters[rating.rater]:
        elsewhere = "is not on this rater's page" if rating.item in key.items else "is not in the key"
        raise refuse(f"item '{rating.item}' {elsewhere}", "item")
    listed = ", ".join(key.criteria)
    if isinstance(rating, HeadToHeadRating):
        unknown = next((name for name in rating.choices if name not in key.criteria), None)
        if unknown is not None:
            raise refuse(f"not one of the key's criteria ({listed})", f"choices.{unknown}")
        missing = next((name for name in key.criteria if name not in rating.choices), None)
        if missing is not None:
            raise refuse("missing", f"choices.{missing}")
        return
    unknown = next((name for name in rating.defects if name not in key.criteria), None)
    if unknown is not None:
        raise refuse(f"not one of the key's categories ({listed})", f"defects.{unknown}")
    turns = key.items[rating.item].turns[0]
    for name, marked in rating.defects.items():
        outside = next((turn for turn in marked if not 1 <= turn <= turns), None)
        if outside is not None:
            raise refuse(f"turn {outside} is not in the dialogue (turns 1-{turns})", f"defects.{name}")
    outside_note = next((turn for turn in rating.notes if not (turn.isdigit() and 1 <= int(turn) <= turns)), None)
    if outside_note is not None:
        raise refuse(f"not a turn of the dialogue (turns 1-{turns})", f"notes.{outside_note}")
