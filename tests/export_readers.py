"""The rules by which the field's own code reads ReDial and PEARL files, written out for the tests (the code itself
is Python 2 or needs its authors' data and models):

- the ReDial authors' loader (conversational-recommendations, batch_loaders/batch_loader.py): "@(\\d+)" becomes
  " 123456 ", the text is tokenised, and a token is a movie only when it matches ^\\d{5,6}$ and is a known movie id;
- UniCRS's ReDial preprocessing: each "@id" becomes the movie's name from `movieMentions`;
- a PEARL reader (PearlDataset) takes every even-length prefix of `dialogue` as (context, response), so the
  response is the prefix's last utterance.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

REDIAL_MENTION = re.compile(r"@(\d+)")
REDIAL_MOVIE_TOKEN = re.compile(r"^\d{5,6}$")
_TOKENS = re.compile(r"\w+|[^\w\s]")


def redial_conversations(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Each split file's conversations: {"train": [...], "valid": [...], "test": [...]} (those present)."""
    found = {}
    for split in ("train", "valid", "test"):
        path = folder / f"{split}_data.jsonl"
        if path.exists():
            found[split] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return found


def redial_movie_ids(folder: Path) -> set[int]:
    """The movie ids movies_with_mentions.csv knows (the loader's db2id keys)."""
    with (folder / "movies_with_mentions.csv").open(encoding="utf-8") as table:
        return {int(row["movieId"]) for row in csv.DictReader(table)}


def loader_movies(text: str, known: set[int]) -> list[int]:
    """The movies the ReDial authors' loader finds in one message."""
    spaced = REDIAL_MENTION.sub(lambda m: " " + m.group(1) + " ", text)
    return [int(token) for token in _TOKENS.findall(spaced) if REDIAL_MOVIE_TOKEN.match(token) and int(token) in known]


def redial_problems(folder: Path) -> list[str]:
    """Everything a ReDial reader would get wrong in an export: mentions the loader misses, mentions not in
    movieMentions, movieMentions never in the text, markup, a year left after a mention, a dialogue naming no
    movie, a user in two splits."""
    problems: list[str] = []
    known = redial_movie_ids(folder)
    users: dict[int, str] = {}
    for split, conversations in redial_conversations(folder).items():
        for conversation in conversations:
            cid = conversation["conversationId"]
            mentions = conversation["movieMentions"]
            written = [m for message in conversation["messages"] for m in REDIAL_MENTION.findall(message["text"])]
            located = [m for message in conversation["messages"] for m in loader_movies(message["text"], known)]
            if len(located) != len(written):
                problems.append(f"{cid}: the loader finds {len(located)} of {len(written)} mentions")
            problems += [f"{cid}: @{m} is not in movieMentions" for m in written if m not in mentions]
            problems += [f"{cid}: movieMentions {m} never occurs in the text" for m in mentions if m not in written]
            if not written:
                problems.append(f"{cid}: names no movie")
            for message in conversation["messages"]:
                text = message["text"]
                if re.search(r"\bEOD\b", text) or "**" in text:
                    problems.append(f"{cid}: markup in {text!r}")
                if re.search(r"@\d+\s*\(\d{4}\)", text):
                    problems.append(f"{cid}: a year after a mention in {text!r}")
            user = users.setdefault(conversation["initiatorWorkerId"], split)
            if user != split:
                problems.append(f"{cid}: seeker {conversation['initiatorWorkerId']} is in {user} and {split}")
    return problems


def unicrs_text(conversation: dict[str, Any], text: str) -> str:
    """UniCRS's reading of a message: each "@id" replaced by the movie's name."""
    return REDIAL_MENTION.sub(lambda m: conversation["movieMentions"].get(m.group(1), m.group(0)), text)


def pearl_responses(dialogue: list[str]) -> list[str]:
    """The responses a PearlDataset-style reader trains on: the last utterance of each even-length prefix."""
    return [dialogue[end - 1] for end in range(2, len(dialogue) + 1, 2)]
