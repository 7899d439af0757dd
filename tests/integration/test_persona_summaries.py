"""`--source movielens` with the real embedded model (SmolLM2): seekers made of MovieLens users' ratings and tags, each
told its taste in a few sentences (`--persona-summaries`, which the free seeker reads); a second run with the same summary cache asks the model for
none and, being the same command in a new process, writes the same dialogues, reply re-samples and all. (Two
utterances a game: the dialogues' course is tested elsewhere.)"""

import json

import pytest

from tests.helpers import SMOLLM, comparable, read_records, run_synth

pytestmark = pytest.mark.integration


def test_movielens_personas_get_summaries_once_and_the_same_command_writes_the_same_dialogues(tmp_path):
    env = {"SYNTH_CACHE_DIR": str(tmp_path / "cache")}  # never the user's own ~/.cache/synth

    def generate(out):
        result = run_synth(
            "generate", "--source", "movielens", "--wording", "free", "--persona-summaries", "--n", "2", "--seed", "11",
            "--max-utterances", "2", "--model", SMOLLM, "--out", str(out), "--no-progress", env=env,
        )
        assert result.returncode == 0, result.stderr
        return json.loads((out / "manifest.json").read_text())["counts"], read_records(out)

    counts, records = generate(tmp_path / "one")
    users = {r.user_id for r in records}
    assert len(records) == 2
    for record in records:  # a rating persona: its target is a rated movie, with no review text
        assert not record.errors, record.errors
        assert record.persona.target.text == "" and record.persona.target.stars.endswith("/5")
        assert record.persona.summary and record.persona.summary.strip()
        assert record.generation.model == "smollm2-135m" and record.generation.sampling["temperature"] == 0.7
    assert counts["distinct_user_target_pairs"] == 2 and counts["available_pairs"] == 48580
    assert counts["persona_summaries_made"] == len(users), counts
    assert counts["persona_summaries_failed"] == counts["persona_summaries_cached"] == 0
    assert counts["reply_resamples"] > 0  # SmolLM2 trips the reply checks: the re-samples replay below too
    assert (tmp_path / "cache" / "persona_summaries.sqlite").exists()

    counts, again = generate(tmp_path / "two")  # a new run folder: no request cache to answer from
    assert counts["persona_summaries_cached"] == len(users), counts
    assert counts["persona_summaries_made"] == counts["persona_summaries_failed"] == 0
    assert comparable(again) == comparable(records)
