"""`synth report RUN`: read the run, measure it beside the compared datasets, and render one HTML file
(Jinja2 templates, matplotlib plots inlined as PNG data URIs, no network needed to view it)."""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from synth import __version__
from synth.analysis.acts.fidelity import RESAMPLES
from synth.analysis.metrics.similarity import sample_indices
from synth.analysis.stats.corpus import Corpus
from synth.analysis.stats.run import open_corpora, similarity_encoder
from synth.data.dialogues import Unit
from synth.errors import InputError
from synth.html_templates import page_environment
from synth.report.dialogue_views import DialogueView, dialogue_view
from synth.report.run_files import dialogue_count, open_run, report_items, reported_dialogues, run_corpora
from synth.report.run_overview import overview
from synth.report.sections import (
    ActsSection,
    RatingSection,
    acts_section,
    filter_section,
    rating_section,
    stats_section,
)
from synth.runs.folder import RunFolder
from synth.runs.layout import RATING_SCORES_FILE

log = logging.getLogger(__name__)

HUMAN_FORMATS = {"redial", "inspired", "gorecdial", "iard"}  # people wrote them (PEARL and synth runs: models)
ACTS_HINT = "pass --acts (the act model is trained from IARD once, about a minute), or run `synth acts train` first"


@dataclass
class ReportOptions:
    compare: list[str]  # 'LABEL=PATH' or 'PATH' of datasets shown beside the run
    acts: bool | None = None  # None: when a trained act model is already saved
    acts_model: Path | None = None
    max_dialogues: int = 1000  # dialogues in the browser (a seeded sample beyond that)
    sample: int | None = None  # dialogues measured per dataset (a seeded sample); None: all
    seed: int = 0
    similarity_model: str | None = "sentence-transformers/all-MiniLM-L6-v2"  # None: no similarity row
    unit: Unit = "turn"  # what an utterance is: a speaker's turn (consecutive messages merged), or each message
    fidelity_resamples: int = RESAMPLES  # bootstrap resamples of the fidelity's intervals
    progress: bool = False  # a bar (count and ETA) while the datasets are measured
    ratings: Path | None = None  # scored human ratings; None: the run folder's rating_scores.json, if any


@dataclass
class ReportSummary:
    path: Path
    dialogues_shown: int
    dialogues_total: int
    compared: list[str]
    acts: bool
    bytes: int


def write_report(run: Path, out: Path, options: ReportOptions) -> ReportSummary:
    """Render the report of the run folder `run` into the HTML file `out` (a folder: its report.html), written
    whole, then moved in."""
    out = out / "report.html" if out.is_dir() else out
    files = open_run(run)
    total = dialogue_count(files)
    if total == 0:
        raise InputError(files.file, "no dialogues to report on")
    dialogues = _browsed(files, total, options)
    own = run_corpora(files, options.sample, options.seed)
    corpora = [*own, *open_corpora(options.compare, sample=options.sample, seed=options.seed)]
    encoder = similarity_encoder(options.similarity_model)
    acts = _acts(corpora, fidelity_reference(corpora, len(own)), options)
    page = page_environment("synth.report").get_template("report.html.j2").render(
        name=run.resolve().name,
        path=str(run.resolve()),
        written=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        version=__version__,
        overview=overview(files.manifest, total),
        stats=stats_section(corpora, encoder=encoder, seed=options.seed, unit=options.unit, progress=options.progress),
        filter=filter_section(files.filter_report) if files.filter_report else None,
        filter_dropped=files.filter_report.dropped if files.filter_report else 0,
        dropped=[d for d in dialogues if d.status == "dropped"],
        acts=acts,
        acts_note=ACTS_HINT,
        ratings=_ratings(run, options.ratings),
        dialogues=dialogues,
        total=total,
        seed=options.seed,
        ended_by=sorted({d.ended_by for d in dialogues}),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    part.write_text(page, encoding="utf-8")
    part.replace(out)
    compared = [c.name for c in corpora[len(own):]]
    return ReportSummary(out, len(dialogues), total, compared, acts is not None, len(page.encode()))


def _browsed(files: RunFolder, total: int, options: ReportOptions) -> list[DialogueView]:
    """The dialogues of the browser: all of them, or a seeded sample of `max_dialogues`."""
    chosen = sample_indices(total, options.max_dialogues, options.seed)
    wanted = set(chosen) if len(chosen) < total else None
    filtered = files.filter_report is not None
    items = report_items(files)
    return [dialogue_view(found, items, filtered) for found in reported_dialogues(files, wanted)]


def fidelity_reference(corpora: list[Corpus], own: int) -> int | None:
    """The position of the dataset the report measures fidelity against: the first compared human dataset
    (after the run's `own` columns); None when no compared dataset is human, and then no fidelity."""
    return next((i for i, corpus in enumerate(corpora) if i >= own and corpus.format in HUMAN_FORMATS), None)


def _acts(corpora: list[Corpus], reference: int | None, options: ReportOptions) -> ActsSection | None:
    """The act section when asked for, or (by default) when a trained act model is already saved."""
    wanted = options.acts
    if wanted is None:
        from synth.analysis.acts.model import BENCH_EXTRA_HINT, MODEL_FILE, default_model_dir

        wanted = ((options.acts_model or default_model_dir()) / MODEL_FILE).exists()
        if not wanted:
            log.info("no saved act model: the report leaves out the dialogue acts (%s)", ACTS_HINT)
        elif not all(importlib.util.find_spec(name) for name in ("sklearn", "sentence_transformers")):
            log.warning("the report leaves out the dialogue acts: %s", BENCH_EXTRA_HINT)
            wanted = False
    if not wanted:
        return None
    return acts_section(corpora, options.acts_model, unit=options.unit, reference=reference,
                        resamples=options.fidelity_resamples, seed=options.seed)


def _ratings(run: Path, given: Path | None) -> RatingSection | None:
    """The rating section from the scores given, else from the run folder's own, else none."""
    found = given or run / RATING_SCORES_FILE
    return rating_section(found) if given is not None or found.exists() else None
