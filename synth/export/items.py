"""Whether a persona's review liked its item, as the exporters' questionnaires and persona lines need it."""

from __future__ import annotations

from synth.records import Review


def liked(review: Review) -> bool:
    """Whether the reviewer liked the item: a 0-1 score of at least 0.5 (a review without a score counts as liked)."""
    return (review.score if review.score is not None else 1.0) >= 0.5
