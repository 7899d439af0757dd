"""The contradiction judge the configuration asks for."""

from __future__ import annotations

from pathlib import Path

from synth.domain import Domain
from synth.filters.config import FilterConfig
from synth.filters.judge_protocol import ContradictionJudge

JUDGE_REQUESTS_FILE = "judge_requests.sqlite"


def make_judge(config: FilterConfig, out_dir: Path, domain: Domain | None = None) -> ContradictionJudge:
    """An NLI cross-encoder, or an LLM judge whose calls are cached in OUT/judge_requests.sqlite; the LLM
    judge's prompts speak of the run's `domain` (movies by default)."""
    if config.judge == "nli":
        from synth.filters.nli_judge import NLIJudge

        return NLIJudge(
            config.nli_model,
            threshold=config.nli_threshold,
            batch_size=config.nli_batch_size,
        )
    from synth.filters.llm_judge import LLMJudge
    from synth.llm.factory import make_backend
    from synth.llm.request_cache import CachedBackend, RequestCache
    from synth.prompting import PromptSet

    out_dir.mkdir(parents=True, exist_ok=True)
    backend = CachedBackend(make_backend(config.llm), RequestCache(out_dir / JUDGE_REQUESTS_FILE))
    prompts = PromptSet.load(config.prompts_dir, mode="judge", domain=domain)
    return LLMJudge(
        backend, prompts, max_tokens=config.llm_max_tokens, retries=config.llm_retries, screen=config.llm_screen
    )
