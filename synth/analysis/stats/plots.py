"""PNG plots of dataset statistics: utterance lengths, turns to goal, and several datasets side by side."""

from __future__ import annotations

from pathlib import Path

from synth.analysis.stats.measures import DIST_N, SPECIFICITY_N, DatasetStats, Profile
from synth.analysis.stats.table import unit_of

MAX_WORDS = 60  # longer utterances share the last bin


def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def write_plots(out_dir: Path, all_stats: list[DatasetStats], profiles: list[Profile]) -> list[Path]:
    """Write the plots that apply to these datasets into `out_dir`; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [_utterance_lengths(out_dir / "utterance_lengths.png", all_stats, profiles)]
    if any(p.turns_to_goal for p in profiles):
        written.append(_turns_to_goal(out_dir / "turns_to_goal.png", all_stats, profiles))
    if len(all_stats) > 1:
        written.append(_side_by_side(out_dir / "comparison.png", all_stats))
    return written


def _utterance_lengths(path: Path, all_stats: list[DatasetStats], profiles: list[Profile]) -> Path:
    plt = pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    bins, unit = range(0, MAX_WORDS + 2, 2), unit_of(all_stats)
    for axis, role in zip(axes, ("seeker", "recommender")):
        for stats, found in zip(all_stats, profiles):
            lengths = [min(length, MAX_WORDS) for length in getattr(found, f"{role}_lengths")]
            if lengths:
                weights = [1 / len(lengths)] * len(lengths)  # each bin's height is its share of the utterances
                axis.hist(lengths, bins=bins, weights=weights, histtype="step", linewidth=1.8, label=stats.name)
        axis.set_title(f"{role} {unit}s")
        axis.set_xlabel(f"words per {unit} ({MAX_WORDS}+ in the last bin)")
    axes[0].set_ylabel(f"share of {unit}s (2-word bins)")
    axes[1].legend(fontsize="small")
    return save_figure(figure, path)


def _turns_to_goal(path: Path, all_stats: list[DatasetStats], profiles: list[Profile]) -> Path:
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(6, 4))
    for stats, found in zip(all_stats, profiles):
        if found.turns_to_goal:
            top = max(found.turns_to_goal)
            axis.hist(found.turns_to_goal, bins=range(1, top + 2), histtype="step", linewidth=1.8, label=stats.name)
    axis.set_xlabel("utterances after the seed exchange until the target is accepted")
    axis.set_ylabel("dialogues")
    axis.set_title("turns to goal (accepted dialogues)")
    axis.legend(fontsize="small")
    return save_figure(figure, path)


def _side_by_side(path: Path, all_stats: list[DatasetStats]) -> Path:
    unit = unit_of(all_stats)
    panels = [
        (
            f"words per {unit}",
            ["seeker", "recommender"],
            lambda s: [s.words_per_seeker_utterance, s.words_per_recommender_utterance],
        ),
        (f"{unit}s per dialogue", [""], lambda s: [s.utterances_per_dialogue]),
        (
            "n-gram specificity (seeker)",
            [f"n={n}" for n in SPECIFICITY_N],
            lambda s: [s.ngram_specificity[str(n)] for n in SPECIFICITY_N],
        ),
        ("Dist-n (word n-grams)", [f"n={n}" for n in DIST_N], lambda s: [s.dist[str(n)] for n in DIST_N]),
        ("inter-dialogue similarity", [""], lambda s: [s.inter_dialogue_similarity or 0.0]),
    ]
    plt = pyplot()
    figure, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 4))
    width = 0.8 / len(all_stats)
    for axis, (title, groups, values) in zip(axes, panels):
        for index, stats in enumerate(all_stats):
            positions = [g + index * width for g in range(len(groups))]
            axis.bar(positions, values(stats), width=width, label=stats.name)
        axis.set_xticks([g + width * (len(all_stats) - 1) / 2 for g in range(len(groups))], groups)
        axis.set_title(title, fontsize="medium")
    axes[0].legend(fontsize="small")
    figure.suptitle("datasets side by side")
    return save_figure(figure, path)


def save_figure(figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(figure)
    return path
