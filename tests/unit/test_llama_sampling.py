"""The batch engine's token choice (synth.llm.llama_batch.pick), without a model."""

from __future__ import annotations

import numpy as np

from synth.llm.llama_batch import TOP_K, pick


def test_temperature_zero_is_greedy() -> None:
    logits = np.array([0.1, 3.0, 2.9, -1.0], dtype=np.float32)
    assert pick(logits, 0.0, np.random.default_rng(0)) == 1


def test_a_seed_gives_the_same_draws_and_draws_stay_in_the_top_k() -> None:
    logits = np.random.default_rng(1).normal(size=500).astype(np.float32)
    top = set(np.argsort(-logits)[:TOP_K].tolist())
    draws = [pick(logits, 1.0, np.random.default_rng(7)) for _ in range(3)]
    assert len(set(draws)) == 1
    many = {pick(logits, 1.5, rng) for rng in [np.random.default_rng(s) for s in range(200)]}
    assert many <= top and len(many) > 5


def test_min_p_drops_tokens_far_below_the_best() -> None:
    logits = np.array([10.0, 9.5, 0.0, -5.0], dtype=np.float32)  # tokens 2 and 3 are under 5% of the best
    assert {pick(logits, 1.0, np.random.default_rng(s)) for s in range(100)} == {0, 1}


def test_masked_tokens_are_never_drawn() -> None:
    logits = np.array([5.0, -np.inf, 4.0, -np.inf], dtype=np.float32)
    assert {pick(logits, 2.0, np.random.default_rng(s)) for s in range(100)} <= {0, 2}
