"""The statistics of several datasets as one table: a row per statistic, a column per dataset."""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table

from synth.analysis.stats.measures import DIST_N, SPECIFICITY_N, DatasetStats

Row = tuple[str, str, Callable[[DatasetStats], object]]  # label, number format, value

ROWS: list[Row] = [
    (
        "dialogues",
        ",",
        lambda s: s.dialogues if s.dialogues == s.dialogues_in_file else f"{s.dialogues:,} of {s.dialogues_in_file:,}",
    ),
    ("utterances", ",", lambda s: s.utterances),
    ("utterances per dialogue", ".1f", lambda s: s.utterances_per_dialogue),
    ("distinct users", ",", lambda s: s.distinct_users),
    ("distinct items mentioned", ",", lambda s: s.distinct_items),
    ("words per seeker utterance", ".1f", lambda s: s.words_per_seeker_utterance),
    ("words per recommender utterance", ".1f", lambda s: s.words_per_recommender_utterance),
    *[(f"{n}-gram specificity (seeker)", ".1f", lambda s, n=n: s.ngram_specificity[str(n)]) for n in SPECIFICITY_N],
    ("inter-dialogue similarity", ".3f", lambda s: s.inter_dialogue_similarity),
    *[(f"Dist-{n} (corpus, word n-grams)", ".3f", lambda s, n=n: s.dist[str(n)]) for n in DIST_N],
    ("acceptance rate", ".1%", lambda s: s.generation and s.generation.acceptance_rate),
    ("turns to goal (mean)", ".1f", lambda s: s.generation and s.generation.turns_to_goal_mean),
    ("recommendations per dialogue", ".2f", lambda s: s.generation and s.generation.recommendations_per_dialogue),
    ("failure rate", ".1%", lambda s: s.generation and s.generation.failure_rate),
    ("tokens per dialogue", ",.0f", lambda s: s.generation and s.generation.tokens_per_dialogue),
]
SYNTH_ONLY = 5  # the last rows describe generation


def cell(value: object, spec: str) -> str:
    if value is None:
        return "–"
    return value if isinstance(value, str) else format(value, spec)


def stat_rows(all_stats: list[DatasetStats]) -> list[Row]:
    """Synth-only rows are left out when no dataset is a synth run."""
    return ROWS if any(s.generation for s in all_stats) else ROWS[:-SYNTH_ONLY]


def stats_table(all_stats: list[DatasetStats]) -> Table:
    """A rich table of the statistics, a column per dataset."""
    table = Table(title="dataset statistics", title_justify="left")
    table.add_column("statistic", no_wrap=True)
    for stats in all_stats:
        table.add_column(stats.name, justify="right")
    for label, spec, value in stat_rows(all_stats):
        table.add_row(label, *(cell(value(s), spec) for s in all_stats))
    table.caption = similarity_caption(all_stats)
    return table


def similarity_caption(all_stats: list[DatasetStats]) -> str | None:
    """What the similarity row measures, naming the embedding models; None when no dataset has it."""
    models = sorted({s.similarity.model for s in all_stats if s.similarity})
    return f"similarity: mean cosine of seeker-side embeddings ({', '.join(models)})" if models else None


def markdown_table(all_stats: list[DatasetStats]) -> str:
    """The same table in Markdown, for a dataset card or a note."""
    lines = ["| statistic | " + " | ".join(s.name for s in all_stats) + " |", "|---" + "|---:" * len(all_stats) + "|"]
    for label, spec, value in stat_rows(all_stats):
        lines.append(f"| {label} | " + " | ".join(cell(value(s), spec) for s in all_stats) + " |")
    return "\n".join(lines)
