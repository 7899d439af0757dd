"""CRSLab's ReDial format (Zhou et al., 2021): one JSON list of conversations per split file ({train,valid,test}
_data.json), each `{"conv_id", "dialog": [{"utt_id", "role", "text": [tokens], "movies", "entity", "word"}]}`;
DistillRecDial's converter writes the list under "conv" instead of "dialog", which is read too.

A turn's text is its tokens joined with spaces and its items are its `movies` (entity names). When the folder
holds synth_items.json (synth's CRSLab export writes it), movie tokens ("@100001") become titles again and the
dialogue's items are titled from it; otherwise a movie is titled by the last part of its entity name
("<http://dbpedia.org/resource/Super_Troopers>" -> "Super Troopers").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pydantic import AliasChoices, BaseModel, Field, RootModel

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn, Role
from synth.data.readers import collect, read_json_document, validate
from synth.errors import InputError

CRSLAB_ITEMS_FILE = "synth_items.json"  # entity name -> {"itemId", "mention", "title"}, beside the split files
_ROLES: dict[str, Role] = {"seeker": "seeker", "recommender": "recommender"}


class _Utterance(BaseModel):
    utt_id: int | str | None = None
    role: str
    text: list[str]
    movies: list[str] = []
    entity: list[str] = []
    word: list[str] = []


class _Conversation(BaseModel):
    conv_id: int | str
    dialog: list[_Utterance] = Field(validation_alias=AliasChoices("dialog", "conv"))


class _Item(BaseModel):
    itemId: str
    mention: str
    title: str


class _Items(RootModel[dict[str, _Item]]):
    pass


def load_crslab(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """Dialogues of one CRSLab split file; `line` in errors is the 1-based dialogue index."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    document = read_json_document(path)
    if not isinstance(document, list):
        raise InputError(path, "expected a JSON list of conversations")
    items = _items(path.parent / CRSLAB_ITEMS_FILE)
    titles = {entity: item.title for entity, item in items.items()}
    mentions = {item.mention: item.title for item in items.values()}
    records = enumerate(document, start=1)
    return collect(path, records, lambda raw, line: _dialogue(raw, path, line, titles, mentions), bad_lines)


def entity_title(entity: str) -> str:
    """A readable name for an entity IRI: its last path part, unescaped, underscores as spaces."""
    name = entity.strip("<>").rstrip("/").rsplit("/", 1)[-1]
    return unquote(name).replace("_", " ")


def _items(path: Path) -> dict[str, _Item]:
    if not path.exists():
        return {}
    return validate(_Items, read_json_document(path), path, None).root


def _dialogue(raw: Any, path: Path, line: int, titles: dict[str, str], mentions: dict[str, str]) -> Dialogue:
    record = validate(_Conversation, raw, path, line)
    turns = [_turn(utterance, index, path, line, mentions) for index, utterance in enumerate(record.dialog)]
    movies = dict.fromkeys(movie for utterance in record.dialog for movie in utterance.movies)
    return Dialogue(
        id=str(record.conv_id),
        source="crslab",
        turns=turns,
        items={movie: titles.get(movie) or entity_title(movie) for movie in movies},
        meta={"conv_id": record.conv_id},
    )


def _turn(utterance: _Utterance, index: int, path: Path, line: int, mentions: dict[str, str]) -> DialogueTurn:
    role = _ROLES.get(utterance.role.lower())
    if role is None:
        raise InputError(
            path,
            f"role {utterance.role!r} is neither 'Seeker' nor 'Recommender'",
            line=line,
            field=f"dialog.{index}.role",
        )
    return DialogueTurn(
        role=role,
        text=" ".join(mentions.get(token, token) for token in utterance.text),
        items=utterance.movies,
        meta={"utt_id": utterance.utt_id, "entity": utterance.entity, "word": utterance.word},
    )
