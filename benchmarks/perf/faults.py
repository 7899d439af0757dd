"""python -m synth.benchmarks.perf.faults: `synth generate --backend openai` through a seeded fault-injecting
proxy (synth.benchmarks.perf.fault_proxy) in front of the real llama.cpp server, in one run, side by side:

1. the same n games at each fault rate (0%, 20%, 40% of requests answered with a 429 + Retry-After, a 500, an
   error page as 200, a dropped connection or a 4 s stall): dialogues written, faults met, retries, the
   concurrency halvings, and wall time as a ratio to the fault-free run;
2. `--rpm R` at concurrency 8: the requests per minute the proxy received unthrottled, then with R at half of
   that, over `--rpm-minutes` (each run is stopped after its time), against R.

Every run has its own folder and no request cache; the server stays up between them.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.perf.fault_proxy import FaultPlan, ProxyLog, fault_proxy
from synth.benchmarks.perf.servers import llama_cpp_server
from synth.config import GenerateConfig
from synth.llm.gguf_models import resolve_model
from synth.runner import generate
from synth.runs.layout import DIALOGUES_FILE
from synth.runs.records import finished_records

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=160)


@dataclass
class FaultRow:
    rate: float
    written: int
    failed: int
    faults: int  # served by the proxy
    stalls: int  # of them, stalls (forwarded late: no retry)
    retries: int
    rate_limited: int
    decreases: int
    wall_s: float


def config_for(url: str, n: int, seed: int, concurrency: int, max_utterances: int, **extra: object) -> GenerateConfig:
    return GenerateConfig(
        n=n, seed=seed, backend="openai", base_url=url, concurrency=concurrency, max_utterances=max_utterances,
        progress=False, request_cache=False, **extra,
    )


def run_at_rate(server: str, rate: float, config: dict, out: Path) -> FaultRow:
    """One run of the games through the proxy at this fault rate."""
    with fault_proxy(server, FaultPlan(rate=rate, seed=int(rate * 1000) + 1)) as (url, log):
        started = time.perf_counter()
        manifest = asyncio.run(generate(config_for(url, **config), out, overwrite=True))
        wall = time.perf_counter() - started
    records = list(finished_records(out / DIALOGUES_FILE))
    requests = manifest.requests
    assert requests is not None
    return FaultRow(rate, len(records), sum(bool(r.errors) for r in records), len(log.faults()),
                    log.faults().count("stall"), requests.retries, requests.rate_limited,
                    requests.concurrency_decreases, wall)


def posts_per_minute(log: ProxyLog) -> tuple[int, float, float]:
    """Chat requests the proxy received, their rate from the first to the last, and that span in minutes."""
    arrivals = [r.arrived for r in log.posts()]
    span = max(arrivals[-1] - arrivals[0], 1e-9)
    return len(arrivals), 60 * (len(arrivals) - 1) / span, span / 60


def sent_rate(
    server: str, seconds: float, out: Path, rpm: float | None, seed: int, max_utterances: int
) -> tuple[int, float, float]:
    """Requests per minute the proxy receives from a run at concurrency 8 (with `rpm`, if given), stopped after
    `seconds` (start-up included: the span of the requests is returned with their count and rate)."""
    with fault_proxy(server, FaultPlan()) as (url, log):
        config = config_for(url, 100_000, seed, 8, max_utterances, rpm=rpm, allow_repeats=True)

        async def play_for_a_while() -> None:
            try:
                await asyncio.wait_for(generate(config, out, overwrite=True), seconds)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass

        asyncio.run(play_for_a_while())
    return posts_per_minute(log)


@app.command()
def main(
    model: str = typer.Option("packaged:smollm2-135m", help="GGUF the llama.cpp server serves."),
    n: int = typer.Option(20, help="Dialogues at each fault rate."),
    rates: str = typer.Option("0,0.2,0.4", help="Fault rates, comma-separated; the first is the baseline ('': skip)."),
    concurrency: int = typer.Option(4, help="Dialogues in flight in the fault-rate runs."),
    max_utterances: int = typer.Option(6, help="Turn cap of every game."),
    rpm_minutes: float = typer.Option(5.0, help="Minutes the --rpm run's requests span at least (0: skip the --rpm part)."),
    probe_minutes: float = typer.Option(1.5, help="Minutes of the unthrottled run that sets R."),
    out: Path = typer.Option(Path("bench-faults"), help="Scratch folder for the runs and bench.json."),
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    figures: dict = {"model": model, "n": n, "concurrency": concurrency, "max_utterances": max_utterances}
    with llama_cpp_server(resolve_model(model).path, out / "server.log") as server:
        game = {"n": n, "seed": 3, "concurrency": concurrency, "max_utterances": max_utterances}
        if rates:
            rows = [run_at_rate(server, float(rate), game, out / f"rate-{rate}") for rate in rates.split(",")]
            figures["rates"] = [row.__dict__ for row in rows]
            table = Table(title=f"{n} games at concurrency {concurrency} through the proxy ({model})")
            for column in ("fault rate", "dialogues written", "failed", "faults served", "of them stalls", "retries", "429s",
                           "concurrency halvings", "wall s", "wall / fault-free"):
                table.add_column(column, justify="right")
            for row in rows:
                table.add_row(f"{row.rate:.0%}", f"{row.written} of {n}", str(row.failed), str(row.faults), str(row.stalls),
                              str(row.retries), str(row.rate_limited), str(row.decreases), f"{row.wall_s:.0f}",
                              f"{row.wall_s / rows[0].wall_s:.2f}x")
            console.print(table)
        if rpm_minutes > 0:
            sent, unthrottled, probed = sent_rate(server, probe_minutes * 60, out / "rpm-none", None, 4, max_utterances)
            rpm = float(int(unthrottled / 2))
            startup_s = 60  # loading and the start-up checks come before the first chat request
            sent_limited, measured, span = sent_rate(
                server, rpm_minutes * 60 + startup_s, out / f"rpm-{rpm:.0f}", rpm, 5, max_utterances
            )
            figures["rpm"] = {"unthrottled_per_min": unthrottled, "unthrottled_requests": sent, "rpm": rpm,
                              "sent_per_min": measured, "requests": sent_limited, "span_minutes": span}
            console.print(
                f"--rpm at concurrency 8: unthrottled {unthrottled:.1f} requests/min ({sent} in {probed:.1f} min); "
                f"--rpm {rpm:.0f} sent {measured:.2f}/min over {span:.2f} min ({sent_limited} requests), "
                f"{100 * (measured / rpm - 1):+.2f}% of R"
            )
    (out / "bench.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    app()
