"""INSPIRED (Hayati et al., EMNLP 2020): one tab-separated row per utterance, grouped by dialog_id."""

from __future__ import annotations

import ast
import csv
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.readers import collect, normalise_space, read_csv_rows, validate
from synth.errors import InputError

_ROLES: dict[str, Literal["seeker", "recommender"]] = {"SEEKER": "seeker", "RECOMMENDER": "recommender"}
_REQUIRED_COLUMNS = ("dialog_id", "utt_id", "speaker", "turn_id", "text")
# Repeated on every row of a dialogue; read from its first row.
_DICT_COLUMNS = ("movie_dict", "genre_dict", "actor_dict", "director_dict", "others_dict")
_LABEL_COLUMNS = ("fine_label", "coarse_label", "movie_id")  # outcome of the dialogue, YouTube trailer id
_QUOTE_TOKEN = "QUOTATION_MARK"  # how the text column spells '"'

Row = dict[str, str]


class _Row(BaseModel):
    dialog_id: str = Field(min_length=1)
    utt_id: int
    speaker: Literal["SEEKER", "RECOMMENDER"]
    turn_id: int
    text: str
    text_with_placeholder: str = ""
    movies: str = ""
    genres: str = ""
    people_names: str = ""
    expert_label: str = ""
    second_label: str = ""


def load_inspired(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """INSPIRED dialogues from a .tsv file.

    Turn items are the titles of the `movies` column (INSPIRED has no movie ids), turn.meta["strategies"]
    the sociable-strategy labels; the dialogue-level dict columns and outcome labels go to Dialogue.meta.
    A dict cell that is not a Python literal is reported; when skipped, only that cell is left out.
    """
    bad_lines = BadLines() if bad_lines is None else bad_lines
    rows = read_csv_rows(path, _REQUIRED_COLUMNS, delimiter="\t", quoting=csv.QUOTE_NONE)
    groups: dict[str, list[tuple[int, Row, DialogueTurn]]] = {}
    for line, row, (dialog_id, turn) in collect(path, rows, lambda r, n: (n, r, _turn(r, path, n)), bad_lines):
        groups.setdefault(dialog_id, []).append((line, row, turn))
    return [_dialogue(dialog_id, group, path, bad_lines) for dialog_id, group in groups.items()]


def _turn(row: Row, path: Path, line: int) -> tuple[str, DialogueTurn]:
    if None in row or None in row.values():
        raise InputError(path, "the row does not have as many tab-separated fields as the header", line=line)
    parsed = validate(_Row, row, path, line)
    turn = DialogueTurn(
        role=_ROLES[parsed.speaker],
        text=parsed.text.replace(_QUOTE_TOKEN, '"'),
        items=_titles(parsed.movies),
        meta={
            "utt_id": parsed.utt_id,
            "turn_id": parsed.turn_id,
            "strategies": [label for label in (parsed.expert_label, parsed.second_label) if label],
            "text_with_placeholder": parsed.text_with_placeholder.replace(_QUOTE_TOKEN, '"'),
            "genres": _titles(parsed.genres),
            "people_names": _titles(parsed.people_names),
        },
    )
    return parsed.dialog_id, turn


def _dialogue(dialog_id: str, group: list[tuple[int, Row, DialogueTurn]], path: Path, bad_lines: BadLines) -> Dialogue:
    line, first_row, _ = group[0]
    meta: dict[str, Any] = {}
    for column in _DICT_COLUMNS:
        if column in first_row:
            try:
                meta[column] = _literal_dict(first_row[column], path, line, column)
            except InputError as error:
                bad_lines.report(error)
    meta.update({column: _label(first_row.get(column)) for column in _LABEL_COLUMNS})
    turns = [turn for _, _, turn in group]
    titles = [normalise_space(str(title)) for title in meta.get("movie_dict", {})]
    titles += [title for turn in turns for title in turn.items]
    return Dialogue(id=dialog_id, source="inspired", turns=turns, items={t: t for t in titles}, meta=meta)


def _literal_dict(cell: str, path: Path, line: int, column: str) -> dict:
    """A Python dict literal such as "{'Heat (1995)': 0}"; an empty cell is an empty dict."""
    if not cell.strip():
        return {}
    try:
        value = ast.literal_eval(cell)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        reason = getattr(exc, "msg", None) or str(exc)
        raise InputError(path, f"not a Python literal ({reason})", line=line, field=column) from None
    if not isinstance(value, dict):
        raise InputError(path, f"expected a dict literal, got {type(value).__name__}", line=line, field=column)
    return value


def _titles(cell: str) -> list[str]:
    """The ';'-separated names of a cell, whitespace normalised."""
    return [normalise_space(name) for name in cell.split(";") if name.strip()]


def _label(cell: str | None) -> str | None:
    return None if cell in (None, "", "nan") else cell
