"""A books run on the real packaged SmolLM2: the prompts speak of books, and a reply that calls an item a movie
anyway (a small model's habit) is caught by the reply checks: re-sampled, or kept with its defect recorded."""

from __future__ import annotations

import re

import pytest

from tests.helpers import generate_smollm, read_records

pytestmark = pytest.mark.integration
MOVIE_WORDS = re.compile(r"\b(?:movies?|films?)\b", re.IGNORECASE)


def test_a_books_run_never_calls_an_item_a_movie_unreported(tmp_path):
    generate_smollm(tmp_path, "--domain", "books", "--n", "1", "--max-utterances", "6")
    records = read_records(tmp_path)
    assert len(records) == 1
    assert records[0].target_item.id.startswith("b")  # the books demo's ids
    turns = records[0].turns
    assert [t.text for t in turns]
    for turn in turns:
        if MOVIE_WORDS.search(turn.text):
            kept = turn.checks.kept_defects if turn.checks else []
            assert any(d.startswith("other_domain") for d in kept), turn.text
    rejected = [r for t in turns if t.checks for r in t.checks.resampled]
    assert all(not MOVIE_WORDS.search(r.text) or any(x.startswith("other_domain") for x in r.reasons) for r in rejected)
