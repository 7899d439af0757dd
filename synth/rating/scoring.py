"""Scoring a rating round from its key and the ratings sent back: head to head, each pair of sources' wins and
ties per criterion; defect marking, per source the dialogues judged sound and the dialogues marked per category;
each share over the rated items with a 95% bootstrap interval (synth.analysis.intervals), and Krippendorff's
alpha wherever two raters or more judged the same items."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from itertools import combinations

from synth.analysis.intervals import mean_interval
from synth.rating.agreement import nominal_alpha
from synth.rating.key import Key
from synth.rating.ratings import SOUND, DefectRating, Rating
from synth.rating.scores import Agreement, Comparison, Outcome, Scores, Share, SourceDefects

Verdicts = dict[str, list[dict[str, Hashable]]]  # item -> each of its ratings' verdicts (Rating.verdicts)


def score(key: Key, ratings: list[Rating], seed: int = 0) -> Scores:
    """The scores of `ratings` (already checked against `key`); `seed` seeds the bootstrap."""
    verdicts: Verdicts = defaultdict(list)
    for rating in ratings:
        verdicts[rating.item].append(rating.verdicts(key))
    sources = list(key.sources)
    head_to_head = key.protocol == "head-to-head"
    measures = list(key.criteria) if head_to_head else [SOUND, *key.criteria]
    twice = {item: found for item, found in verdicts.items() if len(found) > 1}
    return Scores(
        protocol=key.protocol,
        criteria=key.criteria,
        sources=sources,
        items=len(key.items),
        rated=len(verdicts),
        raters=[rater for rater in key.raters if any(rating.rater == rater for rating in ratings)],
        comparisons=[_comparison(key, verdicts, pair, seed) for pair in combinations(sources, 2)]
        if head_to_head else [],
        defects=[] if head_to_head else [_source_defects(key, verdicts, ratings, source, seed) for source in sources],
        agreement=[Agreement(measure=measure, items=len(twice), ratings=sum(map(len, twice.values())),
                             alpha=_rounded(nominal_alpha([[v[measure] for v in found] for found in twice.values()])))
                   for measure in measures],
    )


def _comparison(key: Key, verdicts: Verdicts, pair: tuple[str, str], seed: int) -> Comparison:
    rated = [found for item, found in verdicts.items() if set(key.items[item].sources) == set(pair)]

    def outcome(criterion: str) -> Outcome:
        share = {side: _share([[v[criterion] == side for v in found] for found in rated], seed)
                 for side in ("first", "tie", "second")}
        return Outcome(first_wins=share["first"], ties=share["tie"], second_wins=share["second"])

    return Comparison(first=pair[0], second=pair[1], items=len(rated), ratings=sum(map(len, rated)),
                      criteria={criterion: outcome(criterion) for criterion in key.criteria})


def _source_defects(key: Key, verdicts: Verdicts, ratings: list[Rating], source: str, seed: int) -> SourceDefects:
    rated = [found for item, found in verdicts.items() if key.items[item].sources == [source]]
    own = [rating for rating in ratings
           if isinstance(rating, DefectRating) and key.items[rating.item].sources == [source]]
    return SourceDefects(
        source=source,
        items=len(rated),
        ratings=len(own),
        sound=_share([[bool(v[SOUND]) for v in found] for found in rated], seed),
        categories={name: _share([[bool(v[name]) for v in found] for found in rated], seed) for name in key.criteria},
        turns={name: sum(len(set(rating.defects.get(name, []))) for rating in own) for name in key.criteria},
    )


def _share(per_item: list[list[bool]], seed: int) -> Share:
    """The mean over items of each item's share of ratings that said yes, with its interval."""
    means = [sum(found) / len(found) for found in per_item]
    return Share(ratings=sum(map(sum, per_item)), share=round(sum(means) / len(means), 4) if means else None,
                 interval=mean_interval(means, seed))


def _rounded(alpha: float | None) -> float | None:
    return None if alpha is None else round(alpha, 4)
