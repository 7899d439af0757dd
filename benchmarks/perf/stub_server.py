"""A zero-latency OpenAI-compatible server for measuring synth's client at scale: it answers every chat completion
at once with a valid reply (the rule-following script of the scripted backend, under the request's JSON schema)
and counts requests. `GET /stats` gives the requests answered and the server process's own CPU seconds, so a
benchmark can say how much of the machine the stub took. Run it in its own process:

    python -m synth.benchmarks.perf.stub_server PORT [KEEP_ALIVE_S]
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from synth.llm.scripted import rule_following_script

MODEL = "stub"
BACKLOG = 4096  # pending connections the kernel holds for the server: no connection waits on the stub's accept queue


class Counter:  # one server process: its counts are module state
    requests = 0
    first_at: float | None = None  # time.monotonic() of the first and last answer since the last reset
    last_at: float | None = None


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    form = body.get("response_format") or {}
    if form.get("type") == "json_schema":
        return form["json_schema"]["schema"]
    return form.get("schema")


async def chat_completions(request: Request) -> Response:
    body = json.loads(await request.body())
    text = rule_following_script(body["messages"], _schema(body))
    Counter.requests += 1
    Counter.last_at = time.monotonic()
    if Counter.first_at is None:
        Counter.first_at = Counter.last_at
    prompt = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
    completion = len(text.split())
    return JSONResponse({
        "id": f"stub-{Counter.requests}", "object": "chat.completion", "created": int(time.time()), "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    })


async def models(_: Request) -> Response:
    return JSONResponse({"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "synth"}]})


async def stats(request: Request) -> Response:
    """Requests answered, the server's CPU seconds, and the first and last answer's time since the last
    `?reset=1` (which starts a new window after answering)."""
    answer = {"requests": Counter.requests, "cpu_s": time.process_time(), "first_at": Counter.first_at,
              "last_at": Counter.last_at}
    if request.query_params.get("reset"):
        Counter.first_at = Counter.last_at = None
    return JSONResponse(answer)


app = Starlette(routes=[
    Route("/v1/chat/completions", chat_completions, methods=["POST"]),
    Route("/v1/models", models),
    Route("/stats", stats),
])


def main(port: int, keep_alive_s: float = 5.0) -> None:
    """Serve on `port`; an idle kept-alive connection is closed after `keep_alive_s` (uvicorn's default, 5 s)."""
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, backlog=BACKLOG,
                timeout_keep_alive=keep_alive_s)


if __name__ == "__main__":
    main(int(sys.argv[1]), *(float(arg) for arg in sys.argv[2:3]))
