"""PEARL (Kim et al., 2024): persona-grounded dialogues as a JSON list or as JSON Lines.

Each object has `dialogue` (strings "Seeker: ..." / "Recommender: ..."), `user_persona`,
`gt_movie_title` and `seen_movie_titles`; every other field is kept in Dialogue.meta as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn, Role
from synth.data.readers import collect, peek, read_json_document, read_json_lines, validate
from synth.errors import InputError

_PREFIX = re.compile(r"\s*(seeker|recommender)\s*:\s*", re.IGNORECASE)
_ROLES: dict[str, Role] = {"seeker": "seeker", "recommender": "recommender"}


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")

    dialogue: list[str]
    user_persona: Any = None
    gt_movie_title: str | None = None
    seen_movie_titles: list[str] = []


def load_pearl(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """PEARL dialogues; `line` in errors is the 1-based dialogue index (JSON list) or the line (JSON Lines)."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    return collect(path, _records(path, bad_lines), lambda raw, line: _dialogue(raw, path, line), bad_lines)


def load_pearl_rows(folder: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """PEARL dialogues from the PEARL columns of a Hugging Face dataset saved with `save_to_disk` (one split of
    a `synth export --to hf` folder); `line` in errors is the 1-based row."""
    try:
        from datasets import load_from_disk
    except ImportError:
        raise InputError(folder, "reading a Hugging Face dataset needs the 'hub' extra: pip install 'synth-crs[hub]'") from None
    bad_lines = BadLines() if bad_lines is None else bad_lines
    rows = enumerate(load_from_disk(str(folder)), start=1)
    return collect(folder, rows, lambda raw, line: _dialogue(raw, folder, line), bad_lines)


def iter_pearl(path: Path, *, bad_lines: BadLines | None = None) -> Iterator[tuple[int, Any, Dialogue]]:
    """(line, the raw object, the Dialogue) one by one, for stages that write records back unchanged."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    for line, raw in _records(path, bad_lines):
        try:
            yield line, raw, _dialogue(raw, path, line)
        except InputError as error:
            bad_lines.report(error)


def _records(path: Path, bad_lines: BadLines) -> Iterable[tuple[int, Any]]:
    if not peek(path).startswith("["):
        return read_json_lines(path, bad_lines)
    document = read_json_document(path)
    if not isinstance(document, list):
        raise InputError(path, "expected a JSON list of dialogues")
    return enumerate(document, start=1)


def _dialogue(raw: Any, path: Path, line: int) -> Dialogue:
    record = validate(_Record, raw, path, line)
    return Dialogue(
        id=str(line),
        source="pearl",
        turns=[_turn(utterance, position, path, line) for position, utterance in enumerate(record.dialogue, start=1)],
        seeker_id=str(raw["user_id"]) if raw.get("user_id") is not None else None,  # synth's PEARL export has one
        meta={
            "user_persona": record.user_persona,
            "gt_movie_title": record.gt_movie_title,
            "seen_movie_titles": record.seen_movie_titles,
            **(record.model_extra or {}),
        },
    )


def _turn(utterance: str, position: int, path: Path, line: int) -> DialogueTurn:
    prefix = _PREFIX.match(utterance)
    if prefix is None:
        message = f"utterance {position} starts with neither 'Seeker:' nor 'Recommender:'"
        raise InputError(path, message, line=line, field="dialogue")
    return DialogueTurn(role=_ROLES[prefix.group(1).lower()], text=utterance[prefix.end() :].strip())
