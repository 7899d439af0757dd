"""The report's measured sections: dataset statistics beside the compared datasets, the filter report, the
dialogue acts and the scored human ratings, each as table rows and plots embedded as PNG data URIs."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path

from pydantic import BaseModel

from synth.analysis.acts.fidelity import RESAMPLES
from synth.analysis.stats.corpus import Corpus
from synth.analysis.stats.measures import DatasetStats, Encoder
from synth.analysis.stats.plots import pyplot, save_figure, write_plots
from synth.analysis.stats.run import collect_stats
from synth.analysis.stats.table import (
    DEFECT_ROWS,
    DIVERSITY_ROWS,
    Row,
    cell,
    defects_caption,
    diversity_caption,
    stat_rows,
    stats_caption,
)
from synth.data.dialogues import Unit
from synth.rating.scores import read_scores
from synth.rating.tables import rating_tables
from synth.runs.filtering import FilterReport, FilterRow

PLOT_TITLES = {
    "utterance_lengths.png": "words per utterance",
    "turns_to_goal.png": "turns to goal",
    "comparison.png": "datasets side by side",
    "acts.png": "dialogue acts",
    "filter_drops.png": "drops per filter",
}


class Plot(BaseModel):
    title: str
    data_uri: str  # data:image/png;base64,...


class Table(BaseModel):
    columns: list[str]  # the datasets
    rows: list[tuple[str, list[str]]]  # label, a cell per column
    caption: str | None = None


class StatsSection(BaseModel):
    table: Table
    plots: list[Plot]
    diversity: Table  # distinct users, targets and pairs, near-duplicates, self-BLEU, equal-size Dist-n, coverage
    defects: Table  # each reply detector's rate (synth.analysis.stats.defects)


class FilterSection(BaseModel):
    summary: str
    rows: list[list[str]]  # filter, ran on, dropped, rate, dropped by this filter only, judge errors
    overlap: list[tuple[str, int]]
    plot: Plot | None
    settings: list[str]  # the filters run and the preference method


class ActsSection(BaseModel):
    tables: list[Table]
    plot: Plot


class RatingSection(BaseModel):
    source: str  # the scores file
    summary: str
    tables: list[tuple[str, Table]]  # title, table


def png_uri(path: Path) -> Plot:
    """A PNG file as a plot the page carries inside itself."""
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    return Plot(title=PLOT_TITLES.get(path.name, path.stem), data_uri=f"data:image/png;base64,{encoded}")


def stats_section(
    corpora: list[Corpus], *, encoder: Encoder | None, seed: int = 0, unit: Unit = "turn", progress: bool = False
) -> StatsSection:
    """The statistics table of #7 (the run first, then the compared datasets), its plots, the diversity
    table of #25 and the utterance defects table; an utterance is a speaker's turn, or with unit 'message' each
    message. With `progress`, a bar counts the dialogues measured."""
    all_stats, profiles = collect_stats(corpora, seed=seed, encoder=encoder, unit=unit, progress=progress)
    with tempfile.TemporaryDirectory() as folder:
        plots = [png_uri(path) for path in write_plots(Path(folder), all_stats, profiles)]
    return StatsSection(
        table=_table(all_stats, stat_rows(all_stats), stats_caption(all_stats)),
        plots=plots,
        diversity=_table(all_stats, DIVERSITY_ROWS, diversity_caption(all_stats)),
        defects=_table(all_stats, DEFECT_ROWS, defects_caption(all_stats)),
    )


def _table(all_stats: list[DatasetStats], rows: list[Row], caption: str | None) -> Table:
    cells = [(label, [cell(value(s), spec) for s in all_stats]) for label, spec, value in rows]
    return Table(columns=[s.name for s in all_stats], rows=cells, caption=caption)


def filter_section(report: FilterReport) -> FilterSection:
    """The filter report of #6: drops per filter, overlaps, and a bar chart of the drop rates."""
    rows = [
        [name, f"{row.ran_on:,}", f"{row.dropped:,}", cell(row.drop_rate, ".1%"),
         f"{row.dropped_by_this_filter_only:,}", f"{row.judge_errors:,}"]
        for name, row in report.filters.items()
    ]
    settings = [f"filters run: {', '.join(report.filters_run or report.filters)}"]
    if report.preference_method:
        settings.append(f"preference filters: {report.preference_method}")
    return FilterSection(
        summary=f"{report.kept:,} of {report.dialogues:,} dialogues kept, {report.dropped:,} dropped "
        f"({cell(report.drop_rate, '.1%')})",
        rows=rows,
        overlap=list(report.overlap.items()),
        plot=_drop_plot(report.filters) if report.filters else None,
        settings=settings,
    )


def acts_section(
    corpora: list[Corpus],
    model_dir: Path | None,
    *,
    unit: Unit = "turn",
    reference: int | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> ActsSection:
    """The act distributions and sequences of #10, a column per dataset, their plot, and with `reference` (a
    position in `corpora`) every other dataset's fidelity to that one."""
    from synth.analysis.acts.profile import collect_acts
    from synth.analysis.acts.tables import act_tables, acts_plot

    profiles = collect_acts(corpora, model_dir=model_dir, unit=unit, reference=reference, resamples=resamples,
                            seed=seed)
    columns = [p.name for p in profiles]
    tables = [Table(columns=columns, rows=rows, caption=caption) for _, rows, caption in act_tables(profiles)]
    with tempfile.TemporaryDirectory() as folder:
        plot = png_uri(acts_plot(Path(folder) / "acts.png", profiles))
    return ActsSection(tables=tables, plot=plot)


def _drop_plot(filters: dict[str, FilterRow]) -> Plot:
    plt = pyplot()
    names = list(filters)
    figure, axis = plt.subplots(figsize=(7, 0.5 + 0.45 * len(names)))
    axis.barh(names, [filters[n].drop_rate or 0.0 for n in names], label="dropped by this filter")
    axis.barh(names, [filters[n].dropped_by_this_filter_only / max(filters[n].ran_on, 1) for n in names],
              label="by this filter only")
    axis.invert_yaxis()
    axis.set_xlabel("share of the dialogues the filter ran on")
    axis.legend(fontsize="small", loc="lower right")
    with tempfile.TemporaryDirectory() as folder:
        return png_uri(save_figure(figure, Path(folder) / "filter_drops.png"))


def rating_section(path: Path) -> RatingSection:
    """The scored human ratings of `synth rate score --out` (#65): its tables, a column per source or outcome."""
    scores = read_scores(path)
    tables = [(table.title, Table(columns=table.header[1:], rows=[(row[0], row[1:]) for row in table.rows],
                                  caption=table.caption)) for table in rating_tables(scores)]
    summary = f"{scores.rated} of {scores.items} items rated by {len(scores.raters)} raters, {scores.protocol}"
    return RatingSection(source=str(path), summary=summary, tables=tables)
