"""Spending ceilings (--max-cost, --max-total-tokens): a run stops starting dialogues at its budget, says so in
its manifest, and the same command with a higher ceiling goes on to exactly the run an unbounded one writes.
Game logic only (the scripted backend counts words as tokens)."""

import asyncio
import dataclasses
import json

import pytest

from synth.budget import Budget, Spent
from synth.cli.generate import report_run
from synth.config import GenerateConfig
from synth.errors import SynthError
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.runner import generate
from tests.helpers import run_synth

PRICES = {"price_prompt_per_mtok": 1000.0, "price_completion_per_mtok": 2000.0}  # words as tokens: cents a game


def play(folder, **settings):
    config = GenerateConfig(n=6, seed=3, strategy="pearl", progress=False, concurrency=2, **settings)
    return asyncio.run(generate(config, folder, backend=ScriptedBackend(rule_following_script)))


def test_a_cost_ceiling_stops_the_run_and_a_higher_one_goes_on_exactly(tmp_path):
    unbounded = play(tmp_path / "unbounded", **PRICES)
    per_dialogue = unbounded.cost_usd / 6
    stopped = play(tmp_path / "bounded", **PRICES, max_cost_usd=per_dialogue * 3.5)
    assert stopped.status == "budget" and 2 <= stopped.counts.written < 6
    assert stopped.cost_usd <= per_dialogue * 3.5 * 1.2  # within the ceiling, give or take one dialogue's spread
    resumed = play(tmp_path / "bounded", **PRICES, max_cost_usd=per_dialogue * 100)
    assert resumed.status == "finished" and resumed.counts.written == 6
    assert resumed.counts.resumed_with == stopped.counts.written
    lines = sorted((tmp_path / "bounded" / "dialogues.jsonl").read_text().splitlines())
    assert lines == sorted((tmp_path / "unbounded" / "dialogues.jsonl").read_text().splitlines())


def test_a_token_ceiling_counts_what_the_records_used(tmp_path):
    unbounded = play(tmp_path / "unbounded")
    per_dialogue = (unbounded.tokens.prompt + unbounded.tokens.completion) / 6
    stopped = play(tmp_path / "bounded", max_total_tokens=int(per_dialogue * 2.5))
    assert stopped.status == "budget" and 1 <= stopped.counts.written <= 3
    assert json.loads((tmp_path / "bounded" / "manifest.json").read_text())["status"] == "budget"


def test_the_budget_expects_the_dialogues_in_flight_and_one_more():
    budget = Budget(GenerateConfig(max_total_tokens=1000))
    assert budget.allows(Spent(0, 0, 0), in_flight=5)  # nothing written: nothing to expect yet
    assert budget.allows(Spent(4, 300, 100), in_flight=1)  # 400 + 2 x 100
    assert budget.allows(Spent(4, 300, 100), in_flight=5)  # 400 + 6 x 100: at the ceiling, not past it
    assert not budget.allows(Spent(4, 300, 100), in_flight=6)  # 400 + 7 x 100
    assert budget.describe(Spent(4, 300, 100)) == "400 of 1,000 tokens"
    assert Budget.of(GenerateConfig()) is None
    with pytest.raises(SynthError, match="--max-cost needs prices"):
        Budget.of(GenerateConfig(max_cost_usd=1.0))


def test_the_summary_line_says_the_run_stopped_for_its_budget(tmp_path, capsys):
    settings = GenerateConfig(n=6, seed=3, strategy="pearl", progress=False, concurrency=2, max_total_tokens=1)
    manifest = asyncio.run(generate(settings, tmp_path, backend=ScriptedBackend(rule_following_script)))
    report_run(manifest, tmp_path, settings)
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith(f"stopped for its budget: {manifest.tokens.prompt + manifest.tokens.completion:,} of 1 tokens")
    assert f"spent, {manifest.counts.written} of 6 dialogues written; raise the ceiling" in line


def test_a_cost_ceiling_without_prices_is_one_line_before_anything_is_played(tmp_path):
    result = run_synth("generate", "--n", "2", "--out", str(tmp_path / "a"), "--max-cost", "1", "--backend", "openai")
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        "error: --max-cost needs prices to count what the run spends: pass --price-prompt and --price-completion "
        "(USD per million tokens)"
    ]
    assert not (tmp_path / "a" / "dialogues.jsonl").exists()


class HalfCachedBackend(ScriptedBackend):
    """The scripted backend, saying that the first half of every prompt was served from the server's cache."""

    async def complete(self, messages, **options):
        completion = await super().complete(messages, **options)
        return dataclasses.replace(completion, prompt_tokens_evaluated=completion.prompt_tokens // 2)


def test_prompt_tokens_served_from_the_servers_cache_cost_the_cached_price_in_the_run_and_the_dry_run(tmp_path):
    from synth.estimate import estimate

    prices = {**PRICES, "price_cached_prompt_per_mtok": 100.0}
    config = GenerateConfig(n=2, seed=3, strategy="pearl", progress=False, **prices)
    manifest = asyncio.run(generate(config, tmp_path / "run", backend=HalfCachedBackend(rule_following_script)))
    tokens = manifest.tokens
    cached = tokens.prompt - tokens.prompt_evaluated
    assert cached > 0
    assert manifest.cost_usd == pytest.approx((tokens.prompt_evaluated * 1000 + cached * 100 + tokens.completion * 2000) / 1e6)
    assert manifest.cost_usd < GenerateConfig(**PRICES).cost_usd(tokens.prompt, tokens.completion)
    # without the cached price, every prompt token costs the prompt price
    assert GenerateConfig(**PRICES).cost_usd(tokens.prompt, tokens.completion, tokens.prompt_evaluated) == pytest.approx(
        GenerateConfig(**PRICES).cost_usd(tokens.prompt, tokens.completion))
    figures = asyncio.run(estimate(config.model_copy(update={"n": 200}), tmp_path / "dry", sample=2,
                                   backend=HalfCachedBackend(rule_following_script)))
    assert figures["cached_prompt_tokens_per_dialogue"] == pytest.approx(cached / 2)
    assert figures["cost_usd_total"] == pytest.approx(manifest.cost_usd * 100, rel=0.01)
