"""Shared fixtures: the bundled demo data."""

from __future__ import annotations

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
