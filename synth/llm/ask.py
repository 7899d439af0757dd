"""The one ask-and-parse loop every LLM caller shares (the simulators and the LLM judge): ask the backend
for a schema-constrained answer until one parses, retrying a bounded number of times."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from synth.llm.base import ChatBackend, Completion
from synth.replies import ReplyFormatError

Reply = TypeVar("Reply")
RETRY_TEMPERATURE = 0.7  # a greedy retry would repeat the same broken answer


async def ask_until_parsed(
    backend: ChatBackend,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    parse: Callable[[str], Reply],
    *,
    max_tokens: int,
    temperature: float,
    seed: int,
    retries: int,
    problems: list[str],
    label: str = "",
    on_completion: Callable[[Completion], None] | None = None,
) -> Reply:
    """`parse` of the first answer that parses, asking at most 1 + `retries` times (retries at a raised
    temperature and the next seed). Each failure is appended to `problems`; when every attempt fails,
    ReplyFormatError names the last one."""
    for attempt in range(retries + 1):
        completion = await backend.complete(
            messages,
            max_tokens=max_tokens,
            temperature=temperature if attempt == 0 else max(temperature, RETRY_TEMPERATURE),
            seed=seed + attempt,
            json_schema=schema,
        )
        if on_completion is not None:
            on_completion(completion)
        try:
            return parse(completion.text)
        except ReplyFormatError as exc:
            cut = " (cut off at max_tokens)" if completion.finish_reason == "length" else ""
            problems.append(f"{label}attempt {attempt + 1}: {exc}{cut}")
    raise ReplyFormatError(f"no valid reply in {len(problems)} attempts; last: {problems[-1]}")
