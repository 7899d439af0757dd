"""The key of a rating round (`key.json`, kept beside the pages, never inside them): which sources and dialogues
each blind item shows, on which side, and which items each rater's page holds."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from synth.data.readers import read_json_document, validate
from synth.rating.protocols import Protocol
from synth.runs.atomic import write_text_atomic

KEY_FILE = "key.json"
KEY_VERSION = 1


class KeyItem(BaseModel):
    """One blind item: its dialogues' sources and ids in the page's order (head to head: left, right) and how
    many turns each shows."""

    sources: list[str]
    dialogues: list[str]
    turns: list[int]


class Key(BaseModel):
    """What scoring needs to read the ratings: the protocol, its criteria, the sources, every item, and each
    rater's items in their page's order (`overlap`: those every rater got)."""

    schema_version: int = KEY_VERSION
    round: str  # the round's fingerprint; every page and rating carries it
    protocol: Protocol
    criteria: dict[str, str]  # head to head: name -> question; defects: category -> description
    sources: dict[str, str]  # label -> the path or shared set's name it was read from
    seed: int
    items: dict[str, KeyItem]
    raters: dict[str, list[str]]
    overlap: list[str] = Field(default_factory=list)


def write_key(key: Key, path: Path) -> None:
    """The key as indented JSON, written atomically."""
    write_text_atomic(path, key.model_dump_json(indent=1) + "\n")


def read_key(path: Path) -> Key:
    """The key at `path`; a bad field is named."""
    return validate(Key, read_json_document(path), path, None, kind="a `synth rate` key")
