"""`synth generate --dry-run`: play a few of the run's games and extrapolate tokens, cost and time to n."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from synth.config import GenerateConfig
from synth.llm.base import ChatBackend
from synth.runner import generate
from synth.runs.layout import DIALOGUES_FILE, REQUESTS_FILE
from synth.runs.records import finished_records


async def estimate(config: GenerateConfig, out_dir: Path, *, sample: int = 3, backend: ChatBackend | None = None) -> dict[str, Any]:
    """Tokens, cost and LLM time for `config.n` dialogues, from the first `sample` games played for real.

    Nothing is written to `out_dir` except the request cache, so the real run replays the sample's calls."""
    played = min(sample, config.n)
    with tempfile.TemporaryDirectory() as scratch:
        trial = config.model_copy(update={
            "n": played, "shard": None, "progress": False,
            "request_cache_path": config.request_cache_path or (out_dir / REQUESTS_FILE if config.request_cache else None),
        })
        await generate(trial, Path(scratch), backend=backend)
        records = list(finished_records(Path(scratch) / DIALOGUES_FILE))
    count = len(records)
    prompt = sum(r.generation.prompt_tokens for r in records) / count
    completion = sum(r.generation.completion_tokens for r in records) / count
    llm_s = sum(r.generation.latency_s for r in records) / count
    evaluated_known = all(r.generation.prompt_tokens_evaluated is not None for r in records)
    evaluated = sum(r.generation.prompt_tokens_evaluated or 0 for r in records) / count if evaluated_known else None
    cost = config.cost_usd(round(prompt * config.n), round(completion * config.n),
                           None if evaluated is None else round(evaluated * config.n))
    return {
        "sample_dialogues": count,
        "failed_in_sample": sum(bool(r.errors) for r in records),
        "n": config.n,
        "prompt_tokens_per_dialogue": round(prompt, 1),
        "completion_tokens_per_dialogue": round(completion, 1),
        # prompt tokens the backend served from its KV or prefix cache (None: the backend does not say)
        "cached_prompt_tokens_per_dialogue": None if evaluated is None else round(prompt - evaluated, 1),
        "prompt_tokens_total": round(prompt * config.n),
        "completion_tokens_total": round(completion * config.n),
        "cost_usd_total": None if cost is None else round(cost, 2),
        "llm_seconds_per_dialogue": round(llm_s, 2),
        # dialogues in flight overlap only as far as the backend serves them in parallel
        "hours_at_concurrency": round(llm_s * config.n / config.concurrency / 3600, 2),
    }
