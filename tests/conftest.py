"""Shared fixtures: the bundled demo data and a scripted backend that plays by the rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from synth.data.sources import SourceData, load_demo
from synth.records import Item, Review


@pytest.fixture(scope="session")
def demo() -> SourceData:
    return load_demo()


@pytest.fixture(scope="session")
def catalog(demo: SourceData) -> dict[str, Item]:
    return demo.catalog


@pytest.fixture(scope="session")
def reviews(demo: SourceData) -> list[Review]:
    return demo.reviews


def rule_following_script(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
    """A seeker that accepts exactly when told the suggestion is its target; a recommender that picks the
    last candidate (where a forced target lands) and otherwise asks."""
    props = (schema or {}).get("properties", {})
    if "item" in props:
        choice = props["item"]["enum"][-1]
        return json.dumps({"think": "fits", "item": choice, "utterance": f"You might like {choice}."})
    if "think" in props:
        return json.dumps({"think": "need more", "utterance": "What mood are you in?"})
    if "accept" in props:
        accept = "this is the movie you hoped for" in messages[-1]["content"]
        return json.dumps({"utterance": "Sounds great!" if accept else "Not for me.", "accept": accept})
    return json.dumps({"utterance": "I like smart, moody films."})
