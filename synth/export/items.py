"""What a record says about items, as the exporters need it: every item it can name, and whether a review liked one."""

from __future__ import annotations

from synth.records import DialogueRecord, Review


def known_items(record: DialogueRecord) -> list[str]:
    """Items a dialogue can name: the target, the persona's, every candidate and recommendation (repeats kept)."""
    items = [record.target_item.id]
    if record.persona:
        items += [review.item for review in record.persona.general]
    for turn in record.turns:
        items += [c.item_id for c in turn.candidates or []] + ([turn.recommended_item] if turn.recommended_item else [])
    if record.gorecdial:
        items += [i.id for i in record.gorecdial.seeker_items + record.gorecdial.candidates]
    return items


def liked(review: Review) -> bool:
    """Whether the reviewer liked the item: a 0-1 score of at least 0.5 (a review without a score counts as liked)."""
    return (review.score if review.score is not None else 1.0) >= 0.5
