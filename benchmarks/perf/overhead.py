"""The runner with the LLM taken out: a zero-latency scripted backend.

Orchestration overhead is dialogues/s and peak RSS of `generate` at several n, each n in its own process
so that peak RSS is that run's own. Resume cost is the time to pick up a run that stopped half way
(reading and checking what it wrote), next to the time the first half took.
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from synth.runs.layout import DIALOGUES_FILE, MANIFEST_FILE


@dataclass
class OverheadRow:
    label: str
    n: int
    played: int  # dialogues this process generated (not the ones it resumed with)
    wall_s: float
    peak_rss_mib: float


def play(n: int, out: Path, concurrency: int) -> dict[str, float]:
    """Run `generate` on the rule-following scripted backend; timings and this process's peak RSS."""
    from synth.config import GenerateConfig
    from synth.llm.scripted import ScriptedBackend, rule_following_script
    from synth.runner import generate

    config = GenerateConfig(n=n, seed=0, concurrency=concurrency, progress=False, request_cache=False)
    started = time.perf_counter()
    manifest = asyncio.run(generate(config, out, backend=ScriptedBackend(rule_following_script, keep_calls=False)))
    return {
        "played": manifest.counts.written - (manifest.counts.resumed_with or 0),
        "wall_s": time.perf_counter() - started,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _in_child(label: str, n: int, out: Path, concurrency: int) -> OverheadRow:
    result = subprocess.run(
        [sys.executable, "-m", "synth.benchmarks.perf.overhead", str(n), str(out), str(concurrency)],
        capture_output=True, text=True, check=True,
    )
    return OverheadRow(label, n, **json.loads(result.stdout.strip().splitlines()[-1]))


def measure_overhead(sizes: list[int], concurrency: int, scratch: Path) -> list[OverheadRow]:
    """A fresh run per size; then half of the largest run, and that half resumed to the whole."""
    rows = [_in_child("fresh", n, scratch / f"fresh-{n}", concurrency) for n in sizes]
    largest = max(sizes)
    rows.append(_in_child("first half", largest // 2, scratch / "half", concurrency))
    # A different n is a different run, so a run of `largest` that stopped half way is made from the
    # fresh run's first half of records and its manifest.
    resumed = scratch / "resumed"
    resumed.mkdir()
    full = scratch / f"fresh-{largest}"
    lines = (full / DIALOGUES_FILE).read_text().splitlines(keepends=True)
    (resumed / DIALOGUES_FILE).write_text("".join(lines[: largest // 2]))
    (resumed / MANIFEST_FILE).write_text((full / MANIFEST_FILE).read_text())
    rows.append(_in_child("resume at 50%", largest, resumed, concurrency))
    return rows


if __name__ == "__main__":  # one measured run in its own process: N OUT CONCURRENCY
    print(json.dumps(play(int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))))
