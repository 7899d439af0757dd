"""`--persona-summaries` with the real embedded model (SmolLM2) on MovieLens ratings: every seeker gets its
taste in a few sentences, and a second run with the same summary cache asks the model for none. (Two
utterances a game: the dialogues are not under test.)"""

import json

import pytest

from tests.helpers import SMOLLM, read_records, run_synth

pytestmark = pytest.mark.integration


def test_persona_summaries_are_made_once_per_user_then_read_from_the_cache(tmp_path):
    env = {"SYNTH_CACHE_DIR": str(tmp_path / "cache")}  # never the user's own ~/.cache/synth

    def generate(out):
        result = run_synth(
            "generate", "--source", "movielens", "--persona-summaries", "--n", "2", "--seed", "11",
            "--max-utterances", "2", "--reply-resamples", "0", "--model", SMOLLM, "--out", str(out),
            "--no-progress", env=env,
        )
        assert result.returncode == 0, result.stderr
        return json.loads((out / "manifest.json").read_text())["counts"], read_records(out)

    counts, records = generate(tmp_path / "one")
    users = {r.user_id for r in records}
    assert len(records) == 2
    assert counts["persona_summaries_made"] == len(users), counts
    assert counts["persona_summaries_failed"] == counts["persona_summaries_cached"] == 0
    for record in records:
        assert record.persona.summary and record.persona.summary.strip()
    assert (tmp_path / "cache" / "persona_summaries.sqlite").exists()

    counts, again = generate(tmp_path / "two")  # a new run folder: no request cache to answer from
    assert counts["persona_summaries_cached"] == len(users), counts
    assert counts["persona_summaries_made"] == counts["persona_summaries_failed"] == 0
    assert [r.persona.summary for r in again] == [r.persona.summary for r in records]
