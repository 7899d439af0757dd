"""python -m synth.benchmarks.retrieval: every retriever on ReDial test dialogues and generated runs.

ReDial: the catalog is MovieLens (ml-latest-small) described as generation describes it (genres, tags,
a Rotten Tomatoes critic quote); ReDial mentions are matched to it by title and year."""

from __future__ import annotations

import json
import random
from functools import partial
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.retrieval.evaluate import DEPTH, RetrieverScore, score_retriever
from synth.benchmarks.retrieval.tasks import CaseReport, RetrievalCase, redial_cases, synth_cases
from synth.config import GenerateConfig
from synth.data.configured import load_data
from synth.data.paths import shared_data_root
from synth.data.redial import load_redial
from synth.data.sources import movielens_catalog
from synth.data.title_match import TitleMatcher
from synth.records import Item
from synth.retrievers.factory import RETRIEVERS, build_retriever
from synth.runs.layout import DIALOGUES_FILE, MANIFEST_FILE
from synth.runs.manifest import read_manifest
from synth.runs.records import finished_records

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=160)  # one row per retriever, also when piped to a file


def redial_task(path: Path) -> tuple[dict[str, Item], list[RetrievalCase], CaseReport]:
    catalog = movielens_catalog()
    cases, report = redial_cases(load_redial(path), TitleMatcher(catalog))
    return catalog, cases, report


def run_task(run: Path) -> tuple[dict[str, Item], list[RetrievalCase], CaseReport]:
    manifest = read_manifest(run / MANIFEST_FILE)
    catalog = load_data(GenerateConfig.model_validate(manifest.config)).catalog
    cases, report = synth_cases(finished_records(run / DIALOGUES_FILE))
    return catalog, cases, report


def ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}x" if base else "-"


def print_table(scores: list[RetrieverScore], pool_label: str) -> None:
    table = Table(title=f"Target retrieval ({pool_label}; MRR over the top {DEPTH})")
    for column in ["task", "retriever", "cases", "R@1", "R@3", "R@10", "MRR", "queries/s", "build s",
                   "R@10 / bm25", "MRR / bm25", "q/s / bm25"]:
        table.add_column(column, justify="left" if column in ("task", "retriever") else "right")
    base = {s.task: s for s in scores if s.retriever == "bm25"}
    for s in scores:
        b = base.get(s.task)
        table.add_row(
            s.task, s.retriever, str(s.cases), f"{s.recall_1:.3f}", f"{s.recall_3:.3f}", f"{s.recall_10:.3f}",
            f"{s.mrr:.3f}", f"{s.queries_per_s:.1f}", f"{s.build_s:.1f}",
            ratio(s.recall_10, b.recall_10) if b else "-", ratio(s.mrr, b.mrr) if b else "-",
            ratio(s.queries_per_s, b.queries_per_s) if b else "-",
        )
    console.print(table)


@app.command()
def main(
    redial: Optional[Path] = typer.Option(None, help="ReDial .jsonl [default: shared redial/test_data.jsonl]."),
    run: list[Path] = typer.Option([], "--run", help="A generated run folder (pearl mode); repeatable."),
    only_runs: bool = typer.Option(False, "--only-runs", help="Score the --run folders only, not ReDial."),
    retrievers: str = typer.Option(",".join(RETRIEVERS), help="Comma-separated retrievers to score."),
    limit: int = typer.Option(0, help="Cases per task, a seeded sample (0: all)."),
    pool_size: int = typer.Option(0, help="Candidates per query: a seeded sample with the target (0: whole catalog)."),
    embedding_model: Optional[str] = typer.Option(None, help="Model of dense/hybrid [default: all-MiniLM-L6-v2]."),
    seed: int = typer.Option(0),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the scores as JSON."),
    progress: bool = typer.Option(True, "--progress/--no-progress"),
) -> None:
    """Recall@1/3/10, MRR and queries/s of each retriever, side by side, with ratios to BM25."""
    tasks = {} if only_runs else {"redial-test": redial_task(redial or shared_data_root() / "redial" / "test_data.jsonl")}
    tasks.update({f"run:{path.name}": run_task(path) for path in run})
    names = [n.strip() for n in retrievers.split(",") if n.strip()]
    scores: list[RetrieverScore] = []
    for task, (catalog, cases, report) in tasks.items():
        console.print(
            f"{task}: {report.dialogues} dialogues, {report.mentions} first mentions by the recommender, "
            f"{report.mapped_share:.1%} matched to the catalog of {len(catalog)} items, {len(cases)} cases"
        )
        if limit and len(cases) > limit:
            cases = random.Random(seed).sample(cases, limit)
        ids = list(catalog)
        for name in names:
            build = partial(build_retriever, name, catalog, embedding_model=embedding_model)
            scores.append(
                score_retriever(task, name, build, cases, ids, pool_size=pool_size or None, seed=seed, progress=progress)
            )
    print_table(scores, f"pool: {pool_size} items with the target" if pool_size else "pool: the whole catalog")
    if json_out:
        json_out.write_text(json.dumps([s.as_dict() for s in scores], indent=2))


if __name__ == "__main__":
    app()
