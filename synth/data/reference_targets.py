"""The target movies of a human reference set, and how many of them a run's targets cover.

A target is a movie the recommender brought up and the seeker took:
- ReDial: the movies the recommender suggested (`suggested: 1`) that the seeker liked (`liked: 1`), read from
  the seeker's questionnaire, or from the recommender's when the seeker answered none (both answer about the
  seeker).
- INSPIRED: the seeker accepted one recommended movie per dialogue, but the set names it only by a YouTube
  trailer id (its movie database is not published with the dialogues), so the targets are the movies the
  recommender mentioned first in each dialogue not labelled a rejection (`coarse_label` reject_*).

Names are "Title (Year)" as the set writes them, deduplicated on the normalised title and year (the first
spelling kept); a yearless name is dropped when the same title appears with a year.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue
from synth.data.inspired import load_inspired
from synth.data.movielens import split_title
from synth.data.paths import SHARED_DATASETS, named_dataset
from synth.data.readers import normalise_space
from synth.data.redial import load_redial
from synth.data.title_match import TitleMatcher, title_key
from synth.errors import InputError, SynthError
from synth.records import Item

REFERENCE_SETS: dict[str, Path] = SHARED_DATASETS  # name -> path under shared_data_root()
UNCOVERED_EXAMPLES = 5


@dataclass(frozen=True)
class Coverage:
    """How many of a reference set's targets are among a run's targets."""

    reference: str
    total: int  # the reference set's distinct targets
    covered: int
    share: float  # covered / total (0.0 for an empty set)
    uncovered: tuple[str, ...] = ()  # a few of the targets not covered, in the set's order


def reference_targets(name_or_path: str) -> list[str]:
    """The "Title (Year)" names of the target movies of a reference set: a name of REFERENCE_SETS, or the path
    of a ReDial .jsonl or INSPIRED .tsv file. Deduplicated, in the order the set first names them."""
    path = _reference_path(name_or_path)
    if not path.is_file():
        raise InputError(path, "no such file (shared datasets are read from $SYNTH_SHARED_DATA, else ../shared/data)")
    return list(_targets(path.resolve(), path.stat().st_mtime_ns))


def target_coverage(targets: Iterable[Item], reference: str) -> Coverage:
    """The share of `reference`'s targets (a name or path, as for `reference_targets`) that match one of
    `targets` by title (synth.data.title_match.TitleMatcher) with years at most one apart where both are known
    (the matcher alone would take "Alien: Resurrection (1997)" for the only "Alien" of a catalog)."""
    names = reference_targets(reference)
    catalog = _one_per_movie(targets)
    matcher = TitleMatcher(catalog)
    uncovered = [name for name in names if not _covers(catalog.get(matcher.match(name) or ""), name)]
    covered = len(names) - len(uncovered)
    share = covered / len(names) if names else 0.0
    return Coverage(reference, len(names), covered, share, tuple(uncovered[:UNCOVERED_EXAMPLES]))


def _reference_path(name_or_path: str) -> Path:
    shared = named_dataset(name_or_path)
    if shared is not None:
        return shared
    path = Path(name_or_path)
    if path.suffix.lower() in (".jsonl", ".tsv"):
        return path
    raise SynthError(
        f"unknown reference set '{name_or_path}'; known sets: {', '.join(REFERENCE_SETS)} "
        "(or the path of a ReDial .jsonl or INSPIRED .tsv file)"
    )


@functools.lru_cache(maxsize=8)
def _targets(path: Path, _mtime_ns: int) -> tuple[str, ...]:
    """The targets of the file at `path` (cached while the file is unchanged)."""
    if path.suffix.lower() == ".tsv":  # a bad dict cell (one in INSPIRED dev) is a warning: targets never read it
        dialogues = load_inspired(path, bad_lines=BadLines(skip=True))
        names = (name for dialogue in dialogues for name in _inspired_targets(dialogue))
    else:
        names = (name for dialogue in load_redial(path) for name in _redial_targets(dialogue))
    return _deduplicated(normalise_space(name) for name in names)


def dialogue_targets(dialogue: Dialogue, kind: str) -> list[str]:
    """The "Title (Year)" targets of one dialogue of a `kind` ('redial' or 'inspired') set, in its order."""
    return _redial_targets(dialogue) if kind == "redial" else _inspired_targets(dialogue)


def _redial_targets(dialogue: Dialogue) -> list[str]:
    forms = dialogue.meta.get("initiatorQuestions") or dialogue.meta.get("respondentQuestions") or {}
    return [
        dialogue.items[movie_id]
        for movie_id, answers in forms.items()
        if answers.get("suggested") == 1 and answers.get("liked") == 1 and movie_id in dialogue.items
    ]


def _inspired_targets(dialogue: Dialogue) -> list[str]:
    if str(dialogue.meta.get("coarse_label") or "").startswith("reject"):
        return []
    seen: set[str] = set()
    brought_up = []
    for turn in dialogue.turns:
        for title in turn.items:
            if title not in seen and turn.role == "recommender":
                brought_up.append(title)
            seen.add(title)
    return brought_up


def _deduplicated(names: Iterable[str]) -> tuple[str, ...]:
    """One name per (normalised title, year); a yearless name only when no name with a year has its title; a
    name with no title (ReDial has "(2007)") is left out."""
    by_movie: dict[tuple[str, int | None], str] = {}
    for name in names:
        title, year = split_title(name)
        key = title_key(title)
        if key:
            by_movie.setdefault((key, year), name)
    dated = {key for key, year in by_movie if year is not None}
    return tuple(name for (key, year), name in by_movie.items() if year is not None or key not in dated)


def _covers(item: Item | None, name: str) -> bool:
    year = split_title(name)[1]
    return item is not None and (year is None or item.year is None or abs(item.year - year) <= 1)


def _one_per_movie(targets: Iterable[Item]) -> dict[str, Item]:
    """The items, one per (normalised title, year): two ids of one movie are one target, not an ambiguity."""
    unique: dict[tuple[str, int | None], Item] = {}
    for item in targets:
        unique.setdefault((title_key(item.title), item.year), item)
    return {item.id: item for item in unique.values()}
