"""python -m synth.benchmarks.perf.keepalive_race: whose are the connection faults a busy client meets? An aiohttp
client (synth's transport) keeps `--tasks` requests going against the stub server, each task sending its next
request right after the last answer, while every answer costs the client `--spin-ms` of CPU (what parsing,
checking and the next prompt cost synth), so its event loop runs behind as synth's does at concurrency 1,024.
The stub runs once with uvicorn's default idle timeout for kept-alive connections (5 s, as under vLLM) and once
with 60 s; the table counts the requests answered and the errors by kind. Errors that vanish with the longer
timeout are the client reusing connections the server had closed while idle."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter

from synth.benchmarks.perf.client_scale import stub_server

BODY = json.dumps({"model": "stub", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5})


async def hammer(url: str, tasks: int, rounds: int, spin_s: float) -> tuple[int, Counter[str], float]:
    """(answers, errors by kind, seconds) of `tasks` loops of `rounds` requests each."""
    import aiohttp

    errors: Counter[str] = Counter()
    answered = 0
    connector = aiohttp.TCPConnector(limit=tasks)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def loop() -> None:
            nonlocal answered
            for _ in range(rounds):
                try:
                    async with session.post(url, data=BODY, headers={"content-type": "application/json"}) as answer:
                        await answer.read()
                    answered += 1
                except aiohttp.ClientError as exc:
                    errors[type(exc).__name__] += 1
                end = time.perf_counter() + spin_s  # the client's own work on the answer, holding the loop
                while time.perf_counter() < end:
                    pass
                await asyncio.sleep(0)

        started = time.perf_counter()
        await asyncio.gather(*(loop() for _ in range(tasks)))
    return answered, errors, time.perf_counter() - started


def measure(keep_alive_s: float, tasks: int, rounds: int, spin_ms: float) -> str:
    with stub_server(keep_alive_s) as stub:
        url = f"http://127.0.0.1:{stub.port}/v1/chat/completions"
        answered, errors, seconds = asyncio.run(hammer(url, tasks, rounds, spin_ms / 1000))
    kinds = ", ".join(f"{kind}: {count}" for kind, count in errors.most_common()) or "none"
    return f"| {keep_alive_s:g} s | {tasks} | {spin_ms:g} | {answered} | {kinds} | {seconds:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--spin-ms", type=float, default=8.0)
    parser.add_argument("--keep-alive", default="5,60", help="the stub's idle timeouts to compare, in seconds")
    args = parser.parse_args()
    print("| stub's keep-alive | tasks | client CPU ms per answer | answered | errors | s |")
    print("|---|---:|---:|---:|---|---:|")
    for keep_alive_s in (float(value) for value in args.keep_alive.split(",")):
        print(measure(keep_alive_s, args.tasks, args.rounds, args.spin_ms), flush=True)


if __name__ == "__main__":
    main()
