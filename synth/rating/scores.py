"""The scores of a rating round (`synth rate score --out`, and the run report's section when the run folder holds
them as rating_scores.json): per pair of sources and criterion the wins and ties, per source and category the
dialogues marked, the share judged sound, and the agreement between raters."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from synth.data.readers import read_json_document, validate
from synth.rating.protocols import Protocol
from synth.runs.atomic import write_text_atomic

SCORES_VERSION = 1


class Share(BaseModel):
    """A share of the rated items (an item several raters judged counts once, as the mean of their ratings), its
    95% bootstrap interval, and how many ratings said so."""

    ratings: int
    share: float | None
    interval: list[float] | None


class Outcome(BaseModel):
    """One criterion of a head-to-head comparison."""

    first_wins: Share
    ties: Share
    second_wins: Share


class Comparison(BaseModel):
    """Head to head, `first` against `second` (in the order the sources were given)."""

    first: str
    second: str
    items: int  # pairs rated
    ratings: int
    criteria: dict[str, Outcome]


class SourceDefects(BaseModel):
    """Defect marking, one source: the dialogues judged sound, and per category the dialogues with a turn so
    marked and the turns marked in all its ratings."""

    source: str
    items: int  # dialogues rated
    ratings: int
    sound: Share
    categories: dict[str, Share]
    turns: dict[str, int]


class Agreement(BaseModel):
    """Krippendorff's alpha (nominal) over the items two raters or more judged, for one criterion, category or
    the sound verdict; None where it is undefined."""

    measure: str
    items: int
    ratings: int
    alpha: float | None


class Scores(BaseModel):
    schema_version: int = SCORES_VERSION
    protocol: Protocol
    criteria: dict[str, str]
    sources: list[str]
    items: int  # in the key
    rated: int  # rated at least once
    raters: list[str]  # who sent ratings back
    comparisons: list[Comparison]
    defects: list[SourceDefects]
    agreement: list[Agreement]


def write_scores(scores: Scores, path: Path) -> None:
    """The scores as indented JSON, written atomically."""
    write_text_atomic(path, scores.model_dump_json(indent=1) + "\n")


def read_scores(path: Path) -> Scores:
    """Scores written by `synth rate score --out`; a bad field is named."""
    return validate(Scores, read_json_document(path), path, None, kind="scores of `synth rate score`")
