"""What a retriever reads of an item (its words come from `synth.tokens`)."""

from __future__ import annotations

from synth.records import Item


def item_text(item: Item) -> str:
    """What a retriever knows of an item: title, year, genres and description."""
    year = str(item.year) if item.year else ""
    return " ".join(part for part in (item.title, year, " ".join(item.genres), item.description) if part)
