"""A books run on the real packaged SmolLM2: the prompts speak of books, and so must its utterances."""

from __future__ import annotations

import re

import pytest

from tests.helpers import generate_smollm, read_records

pytestmark = pytest.mark.integration


def test_a_books_run_never_calls_the_item_a_movie(tmp_path):
    generate_smollm(tmp_path, "--domain", "books", "--n", "1")
    records = read_records(tmp_path)
    assert len(records) == 1
    assert records[0].target_item.id.startswith("b")  # the books demo's ids
    said = [t.text for t in records[0].turns]
    assert said and not [text for text in said if re.search(r"\b(?:movies?|films?)\b", text, re.IGNORECASE)]
