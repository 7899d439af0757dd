"""CPU seconds by stage from a cProfile file of a `synth generate` run: every function's own time goes to the
stage of the module it is in; a built-in (a C function: a socket send, a SQLite commit, a regex search) goes to
the stages of its callers, in proportion to the time each call site spent in it. The profiler slows Python code
more than C code, so read the stages' shares, not their absolute seconds."""

from __future__ import annotations

import pstats
from collections import defaultdict
from pathlib import Path

STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("retrieval", ("/synth/retrievers/", "/rank_bm25", "/faiss/", "/sentence_transformers/", "/torch/",
                   "/scipy/", "/synth/game.py")),
    ("prompts", ("/synth/prompting", "/synth/strategy/", "/jinja2/", "/synth/simulators", "/synth/turns",
                 "/synth/target_hints", "/synth/item_knowledge")),
    ("checks", ("/synth/analysis/", "/synth/replies", "/synth/reply_repairs", "/synth/filters/", "/synth/tokens",
                "/synth/short_titles", "/synth/data/title_match", "/re/")),
    ("HTTP client", ("/openai/", "/httpx", "/httpcore", "/h11/", "/aiohttp/", "/anyio/", "/yarl/", "/multidict/",
                     "/ssl.py", "/socket.py", "/pydantic", "/jiter", "/synth/llm/openai_compat", "/synth/llm/retries",
                     "/synth/llm/traffic", "/synth/llm/adaptive", "/synth/llm/rate_limits", "/ipaddress.py",
                     "/http/", "/email/", "/urllib/")),
    ("I/O", ("/synth/runs/", "/synth/kv_store", "/synth/llm/request_cache", "/json/", "/synth/records")),
    ("event loop", ("/asyncio/", "/selectors.py")),
    ("start-up", ("/synth/data/", "/synth/datasets", "/synth/personas", "/synth/planner", "/pandas/", "/numpy/",
                  "<frozen importlib", "/importlib/", "/synth/config", "/typer/", "/click/", "/rich/")),
)
OTHER = "other"
STAGE_NAMES = (*(name for name, _ in STAGES), OTHER)


def stage_of(filename: str) -> str:
    """The stage of a function defined in `filename` ("~" for a built-in has none: OTHER)."""
    for name, markers in STAGES:
        if any(marker in filename for marker in markers):
            return name
    return OTHER


def cpu_by_stage(profile: Path) -> dict[str, float]:
    """Seconds of own time by stage, every stage listed."""
    stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    seconds: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, own, _, callers) in stats.items():
        if filename != "~":
            seconds[stage_of(filename)] += own
            continue
        spent = {caller: edge[2] for caller, edge in callers.items()}  # (calls, calls, own time, cumulative)
        total = sum(spent.values())
        if total <= 0:
            seconds[OTHER] += own
            continue
        for (caller_file, _, _), share in spent.items():
            seconds[stage_of(caller_file) if caller_file != "~" else OTHER] += own * share / total
    return {name: seconds.get(name, 0.0) for name in STAGE_NAMES}
