"""Bad input ends with one line naming the problem, exit code 2 and no traceback."""

import pytest

from tests.helpers import run_synth


def assert_clean_error(result, *needles):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_missing_model_file(tmp_path):
    result = run_synth("generate", "--n", "1", "--out", str(tmp_path), "--model", str(tmp_path / "gone.gguf"))
    assert_clean_error(result, "model file not found", "gone.gguf")


def test_unreachable_base_url(tmp_path):
    result = run_synth(
        "generate", "--n", "1", "--out", str(tmp_path), "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1",
        env={"OPENAI_API_KEY": "sk-never-printed"},
    )
    assert_clean_error(result, "cannot reach the OpenAI-compatible endpoint http://127.0.0.1:9/v1")
    assert "sk-never-printed" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    "content, needles",
    [
        ("", ["reviews.jsonl", "no rows"]),
        ('{"user": "u1", "item": "m001", "rating": 9, "text": "fine"}\n{"user": "u1", "item"\n', ["line 2", "JSON"]),
        ('{"user": "u1", "item": "m001", "text": "no rating"}\n', ["line 1", "field 'rating'", "missing"]),
    ],
    ids=["empty", "malformed", "missing-field"],
)
def test_bad_review_file(tmp_path, content, needles):
    reviews = tmp_path / "reviews.jsonl"
    reviews.write_text(content)
    result = run_synth("generate", "--n", "1", "--out", str(tmp_path / "out"), "--reviews", str(reviews))
    assert_clean_error(result, *needles)
    assert not (tmp_path / "out" / "dialogues.jsonl").exists()


def test_bad_option_value(tmp_path):
    result = run_synth("generate", "--out", str(tmp_path), "--backend", "nope")
    assert_clean_error(result, "config field 'backend'")
