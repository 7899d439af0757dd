"""The scores as tables: head to head, one per pair of sources (a row per criterion: wins, ties, wins); defect
marking, one with a column per source (the dialogues judged sound, then a row per category); and the agreement.
`synth rate score` prints them as Markdown, the run report as HTML."""

from __future__ import annotations

from dataclasses import dataclass

from synth.rating.ratings import SOUND
from synth.rating.scores import Scores, Share

SHARE_NOTE = ("Each cell: the share of the rated items (an item several raters judged counts once, as the mean of "
              "their ratings), its 95% bootstrap interval, and in brackets the ratings that said so.")


@dataclass
class RatingTable:
    title: str
    header: list[str]
    rows: list[list[str]]
    caption: str


def share_cell(share: Share) -> str:
    """'40% [20%, 60%] (4)'; '–' when nothing was rated."""
    if share.share is None or share.interval is None:
        return "–"
    low, high = share.interval
    return f"{share.share:.0%} [{low:.0%}, {high:.0%}] ({share.ratings})"


def rating_tables(scores: Scores) -> list[RatingTable]:
    """The comparisons or the defects, then the agreement."""
    tables = [
        RatingTable(
            title=f"Head to head: {found.first} against {found.second}",
            header=["criterion", f"{found.first} wins", "tie", f"{found.second} wins"],
            rows=[[scores.criteria[name], share_cell(outcome.first_wins), share_cell(outcome.ties),
                   share_cell(outcome.second_wins)] for name, outcome in found.criteria.items()],
            caption=f"{found.items} pairs rated, {found.ratings} ratings. {SHARE_NOTE}",
        )
        for found in scores.comparisons
    ]
    if scores.defects:
        rated = ", ".join(f"{found.source} {found.items} ({found.ratings} ratings)" for found in scores.defects)
        tables.append(RatingTable(
            title="Defect marking: dialogues judged sound, and dialogues with a turn marked",
            header=["category", *(found.source for found in scores.defects)],
            rows=[["judged sound", *(share_cell(found.sound) for found in scores.defects)]]
            + [[description, *(f"{share_cell(found.categories[name])}; turns: {found.turns[name]}"
                                for found in scores.defects)] for name, description in scores.criteria.items()],
            caption=f"Dialogues rated: {rated}. {SHARE_NOTE} After 'turns': the turns so marked in all the ratings.",
        ))
    labels = {SOUND: "judged sound", **scores.criteria}
    twice = scores.agreement[0]  # every row counts the same items
    tables.append(RatingTable(
        title="Agreement between raters (Krippendorff's alpha, nominal)",
        header=["criterion" if scores.protocol == "head-to-head" else "verdict or category", "alpha"],
        rows=[[labels[found.measure], "–" if found.alpha is None else f"{found.alpha:.2f}"]
              for found in scores.agreement],
        caption=f"Over the items two raters or more judged: {twice.items} ({twice.ratings} ratings). 1 is full "
        "agreement, 0 what chance gives, '–' undefined (no item judged twice, or one value throughout; `synth rate "
        "pages --overlap` gives a share of the items to every rater).",
    ))
    return tables


def markdown(scores: Scores) -> str:
    """Every table in Markdown, each under its title, its caption below it."""
    raters = ", ".join(scores.raters)
    lines = [f"{scores.rated} of {scores.items} items rated by {len(scores.raters)} raters ({raters}).", ""]
    for table in rating_tables(scores):
        lines += [f"### {table.title}", "", _markdown_row(table.header), "|" + "---|" * len(table.header)]
        lines += [_markdown_row(row) for row in table.rows]
        lines += ["", table.caption, ""]
    return "\n".join(lines)


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
