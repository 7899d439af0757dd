"""python -m synth.benchmarks.perf.diversity: real dialogues of the default model with the new defaults
(temperature 0.7, the 'pairs' planner) against the defaults before #25 (temperature 0, the 'users' planner),
beside the same number of ReDial test dialogues, side by side in one run.

Both runs are played (or resumed: a run folder under --out continues where it stopped, so the comparison may
span sessions) on the demo personas with the same seed, model, max_tokens and turn cap; then one `synth stats`
table shows, per dataset, the near-duplicate rate, self-BLEU, inter-dialogue similarity, Dist-2 at equal size
and the distinct users, targets and pairs.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer
from rich.console import Console

from synth.analysis.stats.run import collect_stats, open_corpora, similarity_encoder
from synth.analysis.stats.table import diversity_table, stats_table
from synth.config import GenerateConfig
from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL
from synth.runner import generate

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=160)
MODEL = "packaged:qwen2.5-coder-1.5b"


def configs(n: int, seed: int, model: str) -> dict[str, GenerateConfig]:
    """The two settings compared, by folder name: only the temperature and the planner differ."""
    common = {"n": n, "seed": seed, "model": model, "progress": False}
    return {
        "before-25": GenerateConfig(**common, temperature=0.0, planner="users"),
        "new-defaults": GenerateConfig(**common),
    }


@app.command()
def main(
    out: Path = typer.Option(Path("runs/bench-diversity"), help="Folder of the two runs (resumed when present)."),
    n: int = typer.Option(20, help="Dialogues per run, and ReDial test dialogues beside them."),
    seed: int = typer.Option(0),
    model: str = typer.Option(MODEL, help="The model both runs use."),
    reference: str = typer.Option("redial-test", help="The human set shown beside them (a seeded sample of n)."),
    play: bool = typer.Option(True, "--play/--no-play", help="Play or resume the runs first (--no-play: measure what is there)."),
) -> None:
    """Play or resume both runs, then print their statistics beside the reference set."""
    for name, config in configs(n, seed, model).items():
        if play:
            asyncio.run(generate(config, out / name))
    paths = [f"{name}={out / name}" for name in configs(n, seed, model)]
    corpora = open_corpora([*paths, reference], None, sample=n, seed=seed)
    stats, _ = collect_stats(corpora, seed=seed, encoder=similarity_encoder(DEFAULT_EMBEDDING_MODEL),
                             similarity_sample=n, self_bleu_sample=n)
    console.print(stats_table(stats))
    console.print(diversity_table(stats))


if __name__ == "__main__":
    app()
