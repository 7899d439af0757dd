"""ReDial (Li et al., NeurIPS 2018): JSON Lines dialogues and the movies_with_mentions.csv table."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote

from pydantic import BaseModel, Field, field_validator

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn, Role
from synth.data.readers import collect, normalise_space, read_csv_rows, read_json_lines, validate
from synth.errors import InputError

MENTION = re.compile(r"@(\d+)")
_YEAR = re.compile(r"\s*\((\d{4})\)$")
_MOVIE_COLUMNS = ("movieId", "movieName", "nbMentions")


class _Message(BaseModel):
    messageId: int
    text: str
    senderWorkerId: int
    timeOffset: int | None = None


class _Record(BaseModel):
    conversationId: str | int
    initiatorWorkerId: int
    respondentWorkerId: int
    messages: list[_Message]
    movieMentions: dict[str, str]
    initiatorQuestions: dict[str, dict[str, int]]
    respondentQuestions: dict[str, dict[str, int]]

    @field_validator("movieMentions", "initiatorQuestions", "respondentQuestions", mode="before")
    @classmethod
    def _empty_list_means_empty(cls, value: Any) -> Any:
        return {} if value == [] else value  # ReDial writes an unanswered form as []


class RedialMovie(NamedTuple):
    """A row of movies_with_mentions.csv; `title` is the name without its "(year)"."""

    title: str
    year: int | None
    mentions: int


class _MovieRow(BaseModel):
    movieId: str = Field(min_length=1)
    movieName: str
    nbMentions: int


def load_redial(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """Dialogues of a ReDial .jsonl file: the initiator is the seeker, each message one turn."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    return collect(path, read_json_lines(path, bad_lines), lambda raw, line: _dialogue(raw, path, line), bad_lines)


def load_redial_movies(path: Path, *, bad_lines: BadLines | None = None) -> dict[str, RedialMovie]:
    """movies_with_mentions.csv as movieId -> (title, year or None, number of mentions)."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    rows = read_csv_rows(path, _MOVIE_COLUMNS)
    entries = collect(path, rows, lambda row, line: (line, *_movie(row, path, line)), bad_lines)
    movies: dict[str, RedialMovie] = {}
    for line, movie_id, movie in entries:
        if movie_id in movies:
            bad_lines.report(InputError(path, f"duplicate movie id '{movie_id}'", line=line, field="movieId"))
        else:
            movies[movie_id] = movie
    return movies


def _movie(row: dict[str, Any], path: Path, line: int) -> tuple[str, RedialMovie]:
    parsed = validate(_MovieRow, row, path, line)
    name = movie_name(parsed.movieName)
    year = _YEAR.search(name)
    title = name[: year.start()] if year else name
    return parsed.movieId, RedialMovie(title, int(year.group(1)) if year else None, parsed.nbMentions)


def movie_name(raw: str) -> str:
    """A ReDial movie name as written: ReDial left some URL-escaped ("What About Bob%3F (1991)")."""
    return normalise_space(unquote(raw) if "%" in raw else raw)


def _dialogue(raw: dict[str, Any], path: Path, line: int) -> Dialogue:
    record = validate(_Record, raw, path, line)
    roles: dict[int, Role] = {record.initiatorWorkerId: "seeker", record.respondentWorkerId: "recommender"}
    return Dialogue(
        id=str(record.conversationId),
        source="redial",
        turns=[_turn(message, index, roles, path, line) for index, message in enumerate(record.messages)],
        items={movie_id: movie_name(title) for movie_id, title in record.movieMentions.items()},
        seeker_id=str(record.initiatorWorkerId),
        recommender_id=str(record.respondentWorkerId),
        meta={
            "conversationId": str(record.conversationId),
            "initiatorQuestions": record.initiatorQuestions,
            "respondentQuestions": record.respondentQuestions,
        },
    )


def _turn(message: _Message, index: int, roles: dict[int, Role], path: Path, line: int) -> DialogueTurn:
    role = roles.get(message.senderWorkerId)
    if role is None:
        raise InputError(
            path,
            f"sender {message.senderWorkerId} is neither the initiator nor the respondent",
            line=line,
            field=f"messages.{index}.senderWorkerId",
        )
    return DialogueTurn(
        role=role,
        text=message.text,
        items=MENTION.findall(message.text),
        meta={"messageId": message.messageId, "timeOffset": message.timeOffset},
    )
