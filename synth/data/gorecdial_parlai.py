"""GoRecDial (Kang et al., EMNLP 2019) in ParlAI's text format.

Each line is tab-separated `key:value` fields: `text` (the seeker), `labels` (or `eval_labels`: the
expert's reply) and `episode_done:True` on an episode's last line. Inside values ParlAI writes a tab as
"\\t", a newline as "\\n" and "|" as "__PIPE__" ("|" itself separates alternative labels). The first
`text` of an episode may carry context lines (movie sets, descriptions) before the first utterance.
Movies appear as "MID<MovieLens id>" tokens; the format carries no titles, so Dialogue.items stays empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn, Role
from synth.data.readers import collect, read_lines
from synth.errors import InputError

MID = re.compile(r"MID(\d+)")
_ESCAPES = (("\\t", "\t"), ("\\n", "\n"), ("__PIPE__", "|"))
_OWN_KEYS = ("text", "labels", "eval_labels", "episode_done")


class _Exchange(NamedTuple):
    text: str
    reply: str
    extra: dict[str, str]  # the line's other fields (reward, label_candidates, ...)
    done: bool


def load_gorecdial(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """GoRecDial episodes as alternating seeker / recommender turns; ids are 1-based episode numbers."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    return collect(path, _episodes(path, bad_lines), lambda episode, _: _dialogue(*episode), bad_lines)


def _episodes(path: Path, bad_lines: BadLines) -> Iterator[tuple[int, tuple[int, list[_Exchange]]]]:
    """(first line, (episode number, exchanges)) per episode; a bad line is reported and left out."""
    episode: list[_Exchange] = []
    start = last = count = 0
    for number, line in read_lines(path):
        if not line.strip():
            continue
        last = number
        try:
            exchange = _exchange(line, path, number)
        except InputError as error:
            bad_lines.report(error)
            continue
        start = start if episode else number
        episode.append(exchange)
        if exchange.done:
            count += 1
            yield start, (count, episode)
            episode = []
    if episode:
        message = "the file ends inside an episode (no episode_done:True)"
        bad_lines.report(InputError(path, message, line=last, field="episode_done"))


def _exchange(line: str, path: Path, number: int) -> _Exchange:
    fields: dict[str, str] = {}
    for part in line.split("\t"):
        key, colon, value = part.partition(":")
        if not colon:
            raise InputError(path, f"'{part[:40]}' is not a key:value field", line=number)
        fields[key] = value
    if "text" not in fields:
        raise InputError(path, "missing", line=number, field="text")
    reply = fields.get("labels", fields.get("eval_labels"))
    if reply is None:
        raise InputError(path, "missing", line=number, field="labels")
    return _Exchange(
        text=_unescape(fields["text"]),
        reply=_unescape(reply.split("|")[0]),
        extra={key: _unescape(value) for key, value in fields.items() if key not in _OWN_KEYS},
        done=fields.get("episode_done") == "True",
    )


def _unescape(value: str) -> str:
    for escaped, plain in _ESCAPES:
        value = value.replace(escaped, plain)
    return value


def _dialogue(index: int, episode: list[_Exchange]) -> Dialogue:
    *context, opening = episode[0].text.split("\n")
    turns = []
    for position, exchange in enumerate(episode):
        turns.append(_turn("seeker", opening if position == 0 else exchange.text, {}))
        turns.append(_turn("recommender", exchange.reply, exchange.extra))
    context_items = [mid for line in context for mid in MID.findall(line)]
    return Dialogue(
        id=str(index),
        source="gorecdial",
        turns=turns,
        meta={"context": context, "context_items": context_items},
    )


def _turn(role: Role, text: str, meta: dict[str, str]) -> DialogueTurn:
    return DialogueTurn(role=role, text=text, items=MID.findall(text), meta=meta)
