"""Agreement between raters: Krippendorff's alpha for nominal values (Krippendorff, "Computing Krippendorff's
Alpha-Reliability", 2011), from the coincidence matrix of the values the raters gave each item."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from itertools import permutations


def nominal_alpha(units: Iterable[Sequence[Hashable]]) -> float | None:
    """Alpha over `units`, each the values its raters gave one item (an item with fewer than two is not
    pairable and counts for nothing); None when no disagreement could be expected (no pairable item, or one value
    throughout), where alpha is undefined."""
    coincidences: Counter[tuple[Hashable, Hashable]] = Counter()
    for values in units:
        for first, second in permutations(values, 2):  # every ordered pair of two raters' values
            coincidences[first, second] += 1 / (len(values) - 1)
    totals: Counter[Hashable] = Counter()
    for (value, _), weight in coincidences.items():
        totals[value] += weight
    pairable = sum(totals.values())
    observed = sum(weight for (first, second), weight in coincidences.items() if first != second)
    expected = pairable * pairable - sum(total * total for total in totals.values())
    if expected == 0:
        return None
    return 1 - (pairable - 1) * observed / expected
