"""`synth rate`: human evaluation. `synth rate pages` writes a blind rating page per rater and the key beside
them; `synth rate score` reads the key and the ratings sent back and prints the scores."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

PROTOCOL_HELP = ("head-to-head (two dialogues side by side, a choice per criterion, ties allowed) or defects (one "
                 "dialogue, each turn marked with the audit's categories, the dialogue judged sound or not).")


def pages(
    sources: list[str] = typer.Argument(
        ..., help="Datasets to draw from: a run folder, a synth .jsonl, a ReDial / INSPIRED / PEARL / GoRecDial file, "
        "or a shared set by name (redial-test, inspired-test, ...); LABEL=PATH names one in the scores."
    ),
    out: Path = typer.Option(..., "--out", help="The folder of the pages (RATER.html) and the key (key.json)."),
    protocol: str = typer.Option("head-to-head", help=PROTOCOL_HELP),
    sample: int = typer.Option(20, min=1, help="Dialogues drawn per source, a seeded sample (head to head: pairs per "
                               "pair of sources, as many as the smaller source holds)."),
    raters: int = typer.Option(1, min=1, help="Pages to write, one per rater."),
    overlap: float = typer.Option(0.2, min=0.0, max=1.0, help="The share of the items every rater gets, the others "
                                  "dealt out, so that agreement can be measured."),
    criteria: Optional[Path] = typer.Option(
        None, help="A YAML file of criteria (head to head: name: question) or categories (defects: name: "
        "description) [default: PEARL's criteria; the blind audit's categories]."
    ),
    seed: int = typer.Option(0, help="Seed of the sample, the pairs, their sides, the ids and each page's order."),
) -> None:
    """Write one self-contained HTML page per rater (the items blind and shuffled, progress kept in the browser,
    ratings saved as a JSON Lines file) and the key beside them. Send each rater their page only; keep the key."""
    from synth.errors import SynthError
    from synth.rating.pages import RoundOptions, write_round
    from synth.rating.protocols import DEFAULT_CRITERIA, PROTOCOLS, read_criteria

    if protocol not in PROTOCOLS:
        raise SynthError(f"unknown protocol '{protocol}'; choose {' or '.join(PROTOCOLS)}")
    chosen = read_criteria(criteria) if criteria is not None else DEFAULT_CRITERIA[protocol]
    options = RoundOptions(protocol=protocol, criteria=chosen, sample=sample, raters=raters, overlap=overlap, seed=seed)
    summary = write_round(sources, out, options)
    shared = f", {summary.shared} of them on every page" if summary.shared else ""
    count = f"{len(summary.pages)} page{'s' if len(summary.pages) > 1 else ''}"
    typer.echo(f"wrote {count} ({', '.join(page.name for page in summary.pages.values())}) of "
               f"{summary.items} items, up to {summary.per_rater} a page{shared}, and the key {summary.key}: send each "
               "rater their page only")


def score(
    key: Path = typer.Argument(..., help="The key.json that `synth rate pages` wrote beside the pages."),
    ratings: list[Path] = typer.Argument(..., help="The ratings files the raters sent back (JSON Lines)."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON instead of Markdown tables."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Also write the scores as JSON here; as RUN/rating_scores.json, `synth report RUN` shows "
        "them."
    ),
    seed: int = typer.Option(0, help="Seed of the bootstrap intervals."),
) -> None:
    """Win rates (head to head) or defect rates and the share judged sound (defects), per source and criterion with
    95% bootstrap intervals, and the agreement between raters (Krippendorff's alpha) on the items rated twice."""
    from synth.rating.key import read_key
    from synth.rating.ratings import read_ratings
    from synth.rating.scores import write_scores
    from synth.rating.scoring import score as score_ratings
    from synth.rating.tables import markdown

    found = read_key(key)
    scores = score_ratings(found, read_ratings(ratings, found), seed)
    typer.echo(scores.model_dump_json(indent=1) if as_json else markdown(scores))
    if out is not None:
        write_scores(scores, out)
        typer.echo(f"wrote {out}", err=True)
