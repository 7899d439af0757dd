"""The statistics of several datasets as one table: a row per statistic, a column per dataset."""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table

from synth.analysis.defects import DEFECTS
from synth.analysis.stats.diversity import COVERAGE_OF
from synth.analysis.stats.measures import DIST_N, SPECIFICITY_N, DatasetStats

Row = tuple[str, str, Callable[[DatasetStats], object]]  # label, number format, value

ROWS: list[Row] = [
    (
        "dialogues",
        ",",
        lambda s: s.dialogues if s.dialogues == s.dialogues_in_file else f"{s.dialogues:,} of {s.dialogues_in_file:,}",
    ),
    ("{unit}s", ",", lambda s: s.utterances),
    ("{unit}s per dialogue", ".1f", lambda s: s.utterances_per_dialogue),
    ("distinct users", ",", lambda s: s.distinct_users),
    ("distinct items mentioned", ",", lambda s: s.distinct_items),
    ("words per seeker {unit}", ".1f", lambda s: s.words_per_seeker_utterance),
    ("words per recommender {unit}", ".1f", lambda s: s.words_per_recommender_utterance),
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
UNIT_NOTE = {
    "turn": "a turn is a speaker's consecutive messages merged (--per-message counts each message)",
    "message": "each chat message counted alone (--per-message; a speaker's turn may span several)",
}

DIVERSITY_ROWS: list[Row] = [
    ("distinct users", ",", lambda s: s.distinct_users),
    ("distinct targets", ",", lambda s: s.diversity and s.diversity.distinct_targets),
    ("distinct (user, target) pairs", ",", lambda s: s.diversity and s.diversity.distinct_user_target_pairs),
    ("near-duplicate dialogues", ".1%", lambda s: s.diversity and _near_duplicates(s)),
    ("self-BLEU-4 (0-100)", ".1f", lambda s: s.diversity and s.diversity.self_bleu),
    *[(f"Dist-{n} at equal size", ".3f", lambda s, n=n: s.diversity and s.diversity.dist_equal_size[str(n)])
      for n in DIST_N],
    *[(f"target coverage of {name}", ".1%", lambda s, name=name: s.diversity and _coverage(s, name))
      for name in COVERAGE_OF],
]
DEFECT_ROWS: list[Row] = [
    (f"{m.label} (share of {m.unit})", ".1%", lambda s, name=m.name: _defect_rate(s, name)) for m in DEFECTS
]
DEFECTS_CAPTION = (
    "the reply detectors of synth.analysis.defects, each a share of what its row names; persona, plan and item "
    "measures need a synth run's records; human sets show only the word-level ones (–: nothing to count)"
)


def _defect_rate(stats: DatasetStats, name: str) -> float | None:
    found = stats.defects and stats.defects.get(name)
    return found.rate if found else None


def _near_duplicates(stats: DatasetStats) -> str:
    found = stats.diversity
    return f"{found.near_duplicate_rate:.1%} ({found.near_duplicates:,})"


def _coverage(stats: DatasetStats, name: str) -> str | None:
    found = stats.diversity.target_coverage.get(name)
    return found and f"{found.share:.1%} ({found.covered:,} of {found.total:,})"


def cell(value: object, spec: str) -> str:
    if value is None:
        return "–"
    return value if isinstance(value, str) else format(value, spec)


def stat_rows(all_stats: list[DatasetStats]) -> list[Row]:
    """The rows, labelled with the unit counted ('words per seeker turn'); synth-only rows are left out when no
    dataset is a synth run."""
    rows = ROWS if any(s.generation for s in all_stats) else ROWS[:-SYNTH_ONLY]
    unit = unit_of(all_stats)
    return [(label.format(unit=unit), spec, value) for label, spec, value in rows]


def unit_of(all_stats: list[DatasetStats]) -> str:
    """The unit the datasets were counted in ('turn' or 'message'; 'utterance' when they differ)."""
    units = {s.unit for s in all_stats}
    return units.pop() if len(units) == 1 else "utterance"


def stats_table(all_stats: list[DatasetStats]) -> Table:
    """A rich table of the statistics, a column per dataset."""
    caption = stats_caption(all_stats)
    return _rich_table("dataset statistics", "statistic", stat_rows(all_stats), all_stats, caption)


def stats_caption(all_stats: list[DatasetStats]) -> str | None:
    """What a unit counted is, and what the similarity row measures, naming the embedding models."""
    models = sorted({s.similarity.model for s in all_stats if s.similarity})
    lines = [UNIT_NOTE[unit] for unit in sorted({s.unit for s in all_stats})]
    lines += [f"similarity: mean cosine of seeker-side embeddings ({', '.join(models)})"] if models else []
    return "\n".join(lines) or None


def diversity_table(all_stats: list[DatasetStats]) -> Table:
    """A rich table of the diversity measures, a column per dataset."""
    return _rich_table("diversity", "measure", DIVERSITY_ROWS, all_stats, diversity_caption(all_stats))


def defects_table(all_stats: list[DatasetStats]) -> Table:
    """A rich table of the utterance defect rates, a column per dataset."""
    return _rich_table("utterance defects", "measure", DEFECT_ROWS, all_stats, defects_caption(all_stats), wrap=True)


def defects_caption(all_stats: list[DatasetStats]) -> str | None:
    """What the defect rows need, and why a human set's persona rows are empty."""
    return DEFECTS_CAPTION if any(s.defects for s in all_stats) else None


def _rich_table(
    title: str, first: str, rows: list[Row], all_stats: list[DatasetStats], caption: str | None, wrap: bool = False
) -> Table:
    """A row per statistic, a column per dataset; with `wrap`, long labels wrap so that the numbers keep their
    columns."""
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column(first, no_wrap=not wrap)
    for stats in all_stats:
        table.add_column(stats.name, justify="right", no_wrap=wrap)
    for label, spec, value in rows:
        table.add_row(label, *(cell(value(s), spec) for s in all_stats))
    return table


def diversity_caption(all_stats: list[DatasetStats]) -> str | None:
    """The sizes the diversity measures were taken at, and why a coverage is missing."""
    measured = [s.diversity for s in all_stats if s.diversity]
    if not measured:
        return None
    first = measured[0]
    lines = [
        f"self-BLEU: each of {first.self_bleu_dialogues:,} seeded dialogues against the others (sacrebleu); "
        f"Dist-n at equal size: {first.equal_size_words:,} words of seeded whole dialogues in each dataset; "
        "near-duplicates: MinHash LSH over word shingles; –: does not apply (human sets have no planned targets)"
    ]
    lines += sorted({f"target coverage –: {d.coverage_note}" for d in measured if d.coverage_note})
    return "\n".join(lines)


def markdown_table(all_stats: list[DatasetStats]) -> str:
    """The same table in Markdown, for a dataset card or a note."""
    lines = ["| statistic | " + " | ".join(s.name for s in all_stats) + " |", "|---" + "|---:" * len(all_stats) + "|"]
    for label, spec, value in stat_rows(all_stats):
        lines.append(f"| {label} | " + " | ".join(cell(value(s), spec) for s in all_stats) + " |")
    return "\n".join(lines)
