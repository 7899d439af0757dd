"""Act profiles and the tagger's cross-validated scores as tables (rich and Markdown) and a plot."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from rich.table import Table

from synth.analysis.acts.fidelity import REQUEST_BINS, Fidelity, Interval
from synth.analysis.acts.model import ActEvaluation
from synth.analysis.acts.profile import ActProfile
from synth.analysis.acts.taxonomy import ROLES, TAXONOMY, top_labels
from synth.analysis.stats.plots import pyplot, save_figure
from synth.analysis.stats.table import cell

ROLE_TITLE = {"seeker": "seeker intents", "recommender": "recommender actions"}
SHARES_CAPTION = "acts tagged by the IARD-trained tagger (synth acts train) on each message, which may have several"
SEQUENCES_CAPTION = "sequences leave out OTH (greetings, thanks, chit-chat); synth's scripted opening is not counted"
UNIT_NOTE = {
    "turn": "a turn (a speaker's consecutive messages) carries the union of its messages' acts",
    "message": "each message counted alone (--per-message)",
}
FIDELITY_ROWS = {
    "seeker_acts": "JSD seeker acts",
    "recommender_acts": "JSD recommender acts",
    "requests_before_recommendation": "JSD requests before 1st recommendation",
    "sum": "sum (fidelity divergence)",
}
TableRows = list[tuple[str, list[str]]]


def unit_of(profiles: list[ActProfile]) -> str:
    """The unit the profiles counted ('turn' or 'message'; 'utterance' when they differ)."""
    units = {p.unit for p in profiles}
    return units.pop() if len(units) == 1 else "utterance"


def share_rows(profiles: list[ActProfile]) -> TableRows:
    """(label, a cell per dataset) for the share of each act, top levels first, then their sub-acts."""
    rows, unit = [], unit_of(profiles)
    for role in ROLES:
        rows.append((f"[{ROLE_TITLE[role]}, share of {role} {unit}s]", [""] * len(profiles)))
        for top in top_labels(role):
            rows.append((top, [cell(p.top[role][top], ".1%") for p in profiles]))
            for code, (name, parent) in TAXONOMY[role].items():
                if parent == top and code != top:
                    rows.append((f"  {code} {name}", [cell(p.sub[role][code], ".1%") for p in profiles]))
    return rows


def sequence_rows(profiles: list[ActProfile]) -> TableRows:
    """(label, a cell per dataset) for requests before recommending, satisfaction, openings and trigrams."""
    rows = [
        ("dialogues tagged", [cell(p.dialogues, ",") for p in profiles]),
        ("dialogues with a recommendation", [cell(p.with_recommendation, ".1%") for p in profiles]),
        ("requests before the 1st recommendation (mean)", [cell(p.requests_before_recommendation, ".2f") for p in profiles]),
        *[
            (f"  {b} request{'s' if b != '1' else ''}", [cell(p.requests_before_recommendation_shares[b], ".1%") for p in profiles])
            for b in REQUEST_BINS
        ],
        (f"{unit_of(profiles)}s before the 1st recommendation (mean)",
         [cell(p.utterances_before_recommendation, ".1f") for p in profiles]),
        ("predicted satisfaction (mean)", [cell(p.satisfaction_mean, ".2f") for p in profiles]),
        ("dialogues predicted satisfied", [cell(p.satisfied_share, ".1%") for p in profiles]),
    ]
    for kind, attribute in (("recommender opening", "openings"), ("act trigram", "trigrams")):
        for rank in range(max(len(getattr(p, attribute)) for p in profiles)):
            rows.append(
                (
                    f"{kind} #{rank + 1}",
                    [_ranked(getattr(p, attribute), rank) for p in profiles],
                )
            )
    return rows


def _ranked(entries: list[tuple[str, float]], rank: int) -> str:
    if rank >= len(entries):
        return "–"
    label, share = entries[rank]
    return f"{label} ({share:.0%})"


def fidelity_rows(profiles: list[ActProfile]) -> TableRows:
    """(label, a cell per dataset) for each divergence from the reference, with its interval, their sum, and
    the words per utterance; the reference's column says so. No rows when no profile has a fidelity."""
    found = _fidelity_of(profiles)
    if found is None:
        return []
    unit = unit_of(profiles)
    rows = [
        (label, [_divergence(getattr(p.fidelity, key)) if p.fidelity else "reference" for p in profiles])
        for key, label in FIDELITY_ROWS.items()
    ]
    for role in ROLES:
        words = [(p.fidelity.words if p.fidelity else found.reference_words)[role] for p in profiles]
        rows.append((f"words per {role} {unit}", [cell(w, ".1f") for w in words]))
    return rows


def fidelity_caption(profiles: list[ActProfile]) -> str | None:
    """What the fidelity table measures, against which dataset, with how many resamples."""
    found = _fidelity_of(profiles)
    if found is None:
        return None
    unit = unit_of(profiles)
    return (
        f"Jensen-Shannon divergence from {found.reference} (base 2: 0 the same, 1 disjoint; lower is closer) "
        f"[{found.confidence:.0%} bootstrap interval over {found.resamples:,} resamples of both datasets' "
        f"dialogues, seed {found.seed}]; act shares normalised to sum to 1 (a {unit} may carry several acts); "
        f"requests in bins {' / '.join(REQUEST_BINS)} over dialogues with a recommendation; words per {unit} "
        "leave out synth's scripted opening"
    )


def _fidelity_of(profiles: list[ActProfile]) -> Fidelity | None:
    return next((p.fidelity for p in profiles if p.fidelity is not None), None)


def _divergence(interval: Interval) -> str:
    if interval.value is None:
        return "–"
    if interval.low is None:
        return f"{interval.value:.3f}"
    return f"{interval.value:.3f} [{interval.low:.3f}, {interval.high:.3f}]"


def act_tables(profiles: list[ActProfile]) -> list[tuple[str, TableRows, str]]:
    """(title, rows, caption) of the act distributions, the act sequences and, when the profiles have one, the
    fidelity to the reference, a column per dataset."""
    unit_note = UNIT_NOTE.get(unit_of(profiles), "the datasets count different units")
    tables = [
        ("dialogue acts", share_rows(profiles), f"{SHARES_CAPTION}; {unit_note}"),
        ("act sequences", sequence_rows(profiles), SEQUENCES_CAPTION),
    ]
    if _fidelity_of(profiles) is not None:
        tables.append(("fidelity to the reference", fidelity_rows(profiles), fidelity_caption(profiles)))
    return tables


def acts_tables(profiles: list[ActProfile]) -> list[Table]:
    """The act tables (`act_tables`) as rich tables."""
    tables = []
    for title, rows, caption in act_tables(profiles):
        table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
        table.add_column("", no_wrap=True)
        for profile in profiles:
            table.add_column(profile.name, justify="right")
        for label, values in rows:
            table.add_row(escape(label), *values)  # "[seeker intents, ...]" is a heading, not rich markup
        tables.append(table)
    return tables


def evaluation_tables(evaluation: ActEvaluation) -> list[Table]:
    """Per-label precision, recall and F1 of each role's tagger, and the summary scores."""
    tables = []
    for role_scores in (evaluation.seeker, evaluation.recommender):
        table = Table(
            title=f"{ROLE_TITLE[role_scores.role]}: {evaluation.folds}-fold dialogue-grouped cross-validation "
            f"({role_scores.utterances:,} utterances, {role_scores.dialogues} dialogues)",
            title_justify="left",
        )
        for column in ("label", "precision", "recall", "F1", "support"):
            table.add_column(column, justify="left" if column == "label" else "right")
        for level in (role_scores.sub, role_scores.top):
            for row in level.labels:
                table.add_row(f"{row.code} {row.name}" if row.code != row.name else row.code, f"{row.precision:.3f}",
                              f"{row.recall:.3f}", f"{row.f1:.3f}", f"{row.support:,}")
            table.add_row("[b]macro F1[/b]", "", "", f"[b]{level.macro_f1:.3f}[/b]", "")
            table.add_row("micro F1", "", "", f"{level.micro_f1:.3f}", "")
            table.add_row("exact-set accuracy", "", "", f"{level.accuracy:.3f}", "", end_section=True)
        tables.append(table)
    s = evaluation.satisfaction
    table = Table(title=f"satisfaction ({s.dialogues} dialogues, {s.satisfied} satisfied)", title_justify="left")
    for column in ("ROC AUC", "accuracy", "balanced accuracy", "majority class"):
        table.add_column(column, justify="right")
    table.add_row(*(f"{v:.3f}" for v in (s.roc_auc, s.accuracy, s.balanced_accuracy, s.majority_accuracy)))
    tables.append(table)
    return tables


def evaluation_markdown(evaluation: ActEvaluation) -> str:
    lines = []
    for r in (evaluation.seeker, evaluation.recommender):
        lines += [
            f"### {ROLE_TITLE[r.role]} ({r.utterances:,} utterances, {r.dialogues} dialogues, {evaluation.folds} folds)",
            "",
            "| label | precision | recall | F1 | support |",
            "|---|---:|---:|---:|---:|",
        ]
        for level in (r.sub, r.top):
            lines += [
                f"| {row.code} {row.name if row.name != row.code else ''} | {row.precision:.3f} | {row.recall:.3f} | "
                f"{row.f1:.3f} | {row.support} |"
                for row in level.labels
            ]
            lines.append(
                f"| **macro F1 {level.macro_f1:.3f}**, micro F1 {level.micro_f1:.3f}, exact-set accuracy "
                f"{level.accuracy:.3f} | | | | |"
            )
        lines.append("")
    s = evaluation.satisfaction
    lines += [
        f"Satisfaction ({s.dialogues} dialogues, {s.satisfied} satisfied): ROC AUC {s.roc_auc:.3f}, accuracy "
        f"{s.accuracy:.3f}, balanced accuracy {s.balanced_accuracy:.3f}, majority class {s.majority_accuracy:.3f}.",
    ]
    return "\n".join(lines)


def acts_plot(path: Path, profiles: list[ActProfile]) -> Path:
    """Seeker intents, recommender actions and requests before the first recommendation, datasets side by side."""
    plt = pyplot()
    figure, axes = plt.subplots(1, 3, figsize=(17, 6.5), gridspec_kw={"width_ratios": [3, 2.2, 1.2]})
    height = 0.8 / len(profiles)
    for axis, role in zip(axes, ROLES):
        codes = list(TAXONOMY[role])
        for index, profile in enumerate(profiles):
            positions = [c + index * height for c in range(len(codes))]
            axis.barh(positions, [profile.sub[role][code] for code in codes], height=height, label=profile.name)
        axis.set_yticks([c + height * (len(profiles) - 1) / 2 for c in range(len(codes))],
                        [f"{code} ({TAXONOMY[role][code][1]})" for code in codes], fontsize="small")
        axis.invert_yaxis()
        axis.set_xlabel(f"share of {role} {unit_of(profiles)}s")
        axis.set_title(ROLE_TITLE[role])
    axis = axes[2]
    width = 0.8 / len(profiles)
    for index, profile in enumerate(profiles):
        positions = [b + index * width for b in range(len(REQUEST_BINS))]
        axis.bar(positions, [profile.requests_before_recommendation_shares[b] for b in REQUEST_BINS], width=width,
                 label=profile.name)
    axis.set_xticks([b + width * (len(profiles) - 1) / 2 for b in range(len(REQUEST_BINS))], REQUEST_BINS)
    axis.set_xlabel("requests before the 1st recommendation")
    axis.set_ylabel("share of dialogues with a recommendation")
    axis.set_title("recommender requests first")
    axes[1].legend(fontsize="small", loc="lower right")
    figure.suptitle("dialogue acts (IARD taxonomy), datasets side by side")
    return save_figure(figure, path)
