"""Whether synth's client keeps up with a GPU server: `synth generate --backend openai --source movielens` against
the zero-latency stub server (`stub_server.py`, in its own process) at several concurrency levels and
retrievers, this checkout side by side with another (`--before`, e.g. a worktree of an older commit, run from
its own code on this environment's packages).

For each run: dialogues/s and requests/s over the stretch in which requests reached the stub (start-up is
left out: loading MovieLens and building the retriever), the client's CPU seconds per dialogue (the whole
process), the stub's share of the CPU the two used, the faults the client retried, the sends it sent again at once
because they met a connection the stub had closed (its idle timeout), and the client's peak RSS. One run per checkout and retriever at `--profile-level` runs again under cProfile for CPU seconds per
dialogue by stage (`cpu_stages.py`). Every run has `--n` dialogues, and at least `--per-level` times its
concurrency, so that every level keeps its dialogues in flight for most of the run.

    python -m synth.benchmarks.perf.client_scale --before /tmp/before --levels 16,64,256,1024
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory

from synth.benchmarks.perf.cpu_stages import STAGE_NAMES, cpu_by_stage
from synth.benchmarks.perf.servers import free_port, wait_until_serving


@dataclass
class Row:
    code: str
    retriever: str
    concurrency: int
    dialogues: int
    requests: int
    window_s: float  # first to last request the stub answered
    client_cpu_s: float
    stub_cpu_s: float
    faults: int
    peak_rss_mib: float
    fault_kinds: dict[str, int] = field(default_factory=dict)  # where the checkout's manifest records them
    closed_connections: int = 0  # sends that met a connection the stub had closed, sent again at once
    stages: dict[str, float] = field(default_factory=dict)  # profiled CPU s per dialogue, when profiled

    @property
    def requests_per_s(self) -> float:
        return self.requests / self.window_s if self.window_s else 0.0

    @property
    def dialogues_per_s(self) -> float:
        return self.dialogues / self.window_s if self.window_s else 0.0

    @property
    def stub_share(self) -> float:
        return self.stub_cpu_s / (self.client_cpu_s + self.stub_cpu_s)


class Stub:
    """The stub server in a child process on a free port."""

    def __init__(self, port: int):
        self.port = port
        self.url = f"http://127.0.0.1:{port}/v1"

    def stats(self, reset: bool = False) -> dict[str, float]:
        """The stub's counts; `reset` starts a new window of first and last answers."""
        query = "?reset=1" if reset else ""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats{query}", timeout=10) as answer:
            return json.loads(answer.read())


@contextmanager
def stub_server(keep_alive_s: float = 5.0) -> Iterator[Stub]:
    """The stub in its own process, closing idle kept-alive connections after `keep_alive_s` (uvicorn's default)."""
    stub = Stub(free_port())
    child = subprocess.Popen([sys.executable, "-m", "synth.benchmarks.perf.stub_server", str(stub.port),
                              str(keep_alive_s)])
    try:
        wait_until_serving(stub.url, child, api_key=None, timeout_s=20)
        yield stub
    finally:
        child.terminate()
        child.wait()


def run(stub: Stub, code: Path | None, retriever: str, concurrency: int, n: int, out: Path,
        profile: Path | None = None) -> Row:
    """One `synth generate` in a child process (from `code`'s synth when given), measured."""
    command = [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else []), "-m", "synth",
               "generate", "--backend", "openai", "--base-url", stub.url, "--model", "stub", "--source", "movielens",
               "--retriever", retriever, "--n", str(n), "--concurrency", str(concurrency), "--seed", "0",
               "--no-progress", "--out", str(out)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **({"PYTHONPATH": str(code)} if code else {})}
    before = stub.stats(reset=True)
    errors = out.with_suffix(".stderr")
    with errors.open("w") as sink:
        # started in the checkout's folder: `python -m` puts the working folder first on sys.path, so a run
        # started elsewhere (in this checkout, say) would import that folder's synth
        child = subprocess.Popen(command, env=env, cwd=code, stdout=subprocess.DEVNULL, stderr=sink)
        _, status, usage = os.wait4(child.pid, 0)  # reaps the child: its own CPU time and peak RSS
    after = stub.stats()
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"synth generate failed ({retriever}, {concurrency}): {errors.read_text()[-2000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    written, counts = manifest["counts"]["written"], manifest.get("requests") or {}
    stages = {name: seconds / written for name, seconds in cpu_by_stage(profile).items()} if profile else {}
    return Row(code=code.name if code else "this checkout", retriever=retriever, concurrency=concurrency,
               dialogues=written, requests=int(after["requests"] - before["requests"]),
               window_s=after["last_at"] - after["first_at"], client_cpu_s=usage.ru_utime + usage.ru_stime,
               stub_cpu_s=after["cpu_s"] - before["cpu_s"], faults=counts.get("faults", 0),
               peak_rss_mib=usage.ru_maxrss / 1024, fault_kinds=counts.get("fault_kinds", {}),
               closed_connections=counts.get("closed_connections", 0), stages=stages)


def measure(codes: list[Path | None], retrievers: list[str], levels: list[int], n: int, per_level: float,
            profile_level: int | None, scratch: Path) -> list[Row]:
    """Every checkout at every retriever and level (checkouts alternate, so drift hits both), then the profiled
    runs."""
    def sized(level: int) -> int:
        return max(n, round(per_level * level))

    rows = []
    with stub_server() as stub:
        run(stub, None, retrievers[0], levels[0], min(n, 20), scratch / "warm-up")  # first imports, caches
        for retriever in retrievers:
            for level in levels:
                for index, code in enumerate(codes):
                    out = scratch / f"{index}-{retriever}-{level}"
                    rows.append(run(stub, code, retriever, level, sized(level), out))
                    print(_line(rows[-1]), flush=True)
            if profile_level is not None:
                for index, code in enumerate(codes):
                    out = scratch / f"profiled-{index}-{retriever}"
                    rows.append(run(stub, code, retriever, profile_level, sized(profile_level), out,
                                    profile=scratch / f"{index}-{retriever}.prof"))
    return rows


def _line(row: Row) -> str:
    return (f"| {row.code} | {row.retriever} | {row.concurrency} | {row.dialogues_per_s:.1f} | "
            f"{row.requests_per_s:.0f} | {row.client_cpu_s / row.dialogues * 1000:.0f} | {row.stub_share:.0%} | "
            f"{row.faults}{_kinds(row.fault_kinds)} | {row.closed_connections} | {row.peak_rss_mib:.0f} |")


def _kinds(kinds: dict[str, int]) -> str:
    return f" ({', '.join(f'{kind}: {count}' for kind, count in kinds.items())})" if kinds else ""


def report(rows: list[Row]) -> str:
    """The runs' table, the stages of the profiled runs, and the ratios of each checkout to the first."""
    lines = ["| code | retriever | concurrency | dialogues/s | requests/s | client CPU ms/dialogue | stub CPU share | "
             "faults retried | closed connections resent | peak RSS MiB |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [_line(row) for row in rows if not row.stages]
    profiled = [row for row in rows if row.stages]
    if profiled:
        lines += ["", "CPU ms per dialogue by stage, profiled (read the shares: the profiler slows Python more "
                  "than C):", "", "| code | retriever | concurrency | " + " | ".join(STAGE_NAMES) + " |",
                  "|---|---|---:|" + "---:|" * len(STAGE_NAMES)]
        lines += [f"| {row.code} | {row.retriever} | {row.concurrency} | "
                  + " | ".join(f"{row.stages[name] * 1000:.1f}" for name in STAGE_NAMES) + " |" for row in profiled]
    base = {(row.retriever, row.concurrency): row for row in rows if not row.stages and row.code == rows[0].code}
    ratios = [f"{row.code} / {rows[0].code}, {row.retriever} at {row.concurrency}: requests/s "
              f"x{row.requests_per_s / base[row.retriever, row.concurrency].requests_per_s:.2f}"
              for row in rows if not row.stages and row.code != rows[0].code and (row.retriever, row.concurrency) in base]
    return "\n".join(lines + ([""] + ratios if ratios else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout's root, measured first")
    parser.add_argument("--levels", default="16,64,256,1024")
    parser.add_argument("--retrievers", default="bm25")
    parser.add_argument("--n", type=int, default=300, help="dialogues a run (at least --per-level x its concurrency)")
    parser.add_argument("--per-level", type=float, default=2.0)
    parser.add_argument("--profile-level", type=int, default=256, help="the level profiled (0: none)")
    args = parser.parse_args()
    codes = ([args.before.resolve()] if args.before else []) + [None]
    with TemporaryDirectory() as scratch:
        rows = measure(codes, args.retrievers.split(","), [int(level) for level in args.levels.split(",")], args.n,
                       args.per_level, args.profile_level or None, Path(scratch))
    print(report(rows))


if __name__ == "__main__":
    main()
