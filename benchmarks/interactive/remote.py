"""CRSs reached over the network: any chat model behind an OpenAI-compatible endpoint (`openai:URL`, the items
read from its words by title), and any system that speaks synth's small HTTP JSON protocol (`http:URL`,
docs/evaluation.md#the-http-protocol): one POST per CRS turn,

    {"protocol": "synth-crs/1", "case": "...", "conversation": [{"role": "seeker", "text": "..."}, ...],
     "mentioned": ["Heat (1995)", ...]}

answered by

    {"utterance": "...", "items": ["Se7en (1995)", ...]}

`items` is its ranking, best first, by "Title (Year)" (or an id of the catalog); the first of them its words
name is the item it recommends. A reply outside the protocol is an error that names what is wrong."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import httpx

from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.interactive.crs import RANKED, CrsReply, Message
from synth.errors import SynthError
from synth.filters.titles import TitleSpotter
from synth.llm.base import ChatBackend
from synth.redaction import redact_url

PROTOCOL = "synth-crs/1"
TIMEOUT_S = 120.0
_TITLE_WITH_YEAR = re.compile(r"[\"“']?([A-Z0-9][^\"“”\n]{0,80}?)[\"”']?\s*\((\d{4})\)")
CHAT_SYSTEM = (
    "You are a movie recommender chatting with someone who wants one movie to watch. Ask about their taste when "
    "you need to, and recommend one movie at a time by its title and year, like Heat (1995)."
)


class CrsError(SynthError):
    """A CRS that cannot be reached or answers outside its protocol."""


def read_items(text: str, space: ItemSpace) -> tuple[str, ...]:
    """Catalog ids of the "Title (Year)" names in `text`, in order, each once (a name the catalog lacks is
    left out)."""
    found = (space.find(f"{title.strip()} ({year})") for title, year in _TITLE_WITH_YEAR.findall(text))
    return tuple(dict.fromkeys(i for i in found if i is not None and not i.startswith("title:")))


def recommended_of(utterance: str, ranking: Sequence[str], space: ItemSpace) -> str | None:
    """The first ranked item whose title the utterance names: the one it recommends (None: none named)."""
    for item in ranking:
        if TitleSpotter(space.items[item].display).find(utterance):
            return item
    return None


class HttpCrs:
    """A CRS behind synth's HTTP JSON protocol."""

    def __init__(self, url: str, space: ItemSpace, name: str | None = None, client: httpx.AsyncClient | None = None):
        self.url, self.space = url, space
        self.name = name or f"http:{redact_url(url)}"
        self.client = client or httpx.AsyncClient(timeout=TIMEOUT_S)

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        body = {
            "protocol": PROTOCOL, "case": case_id,
            "conversation": [{"role": m.role, "text": m.text} for m in conversation],
            "mentioned": [self.space.items[i].display for i in mentioned if i in self.space.items],
        }
        where = redact_url(self.url)
        try:
            response = await self.client.post(self.url, json=body)
        except httpx.HTTPError as exc:
            raise CrsError(f"the CRS at {where} cannot be reached: {type(exc).__name__}: {exc}") from None
        if response.status_code != 200:
            raise CrsError(f"the CRS at {where} answered HTTP {response.status_code}: {response.text[:200]!r}")
        return self.parse(response.text)

    def parse(self, text: str) -> CrsReply:
        """One protocol answer; CrsError naming the field that breaks it."""
        where = redact_url(self.url)
        try:
            data: Any = json.loads(text)
        except json.JSONDecodeError:
            raise CrsError(f"the CRS at {where} answered with no JSON object: {text[:200]!r}") from None
        if not isinstance(data, dict) or not isinstance(data.get("utterance"), str):
            raise CrsError(f'the CRS at {where} answered without "utterance" (a string): {text[:200]!r}')
        items = data.get("items", [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise CrsError(f'the CRS at {where} answered "items" that is not a list of strings: {text[:200]!r}')
        ranking = tuple(dict.fromkeys(i for i in (self._item(name) for name in items) if i is not None))[:RANKED]
        return CrsReply(data["utterance"], ranking, recommended_of(data["utterance"], ranking, self.space))

    def _item(self, name: str) -> str | None:
        if name in self.space.items and not name.startswith("title:"):
            return name
        found = self.space.find(name)
        return None if found is None or found.startswith("title:") else found

    async def aclose(self) -> None:
        await self.client.aclose()


class ChatModelCrs:
    """A chat model as the CRS: the conversation as chat turns (the seeker's as the user's), its reply's
    "Title (Year)" names as its ranking, the first of them the item it recommends."""

    def __init__(self, backend: ChatBackend, space: ItemSpace, name: str, max_tokens: int = 160, seed: int = 0):
        self.backend, self.space, self.name, self.max_tokens, self.seed = backend, space, name, max_tokens, seed

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        messages = [{"role": "system", "content": CHAT_SYSTEM}]
        for message in conversation:
            role = "assistant" if message.role == "recommender" else "user"
            if messages[-1]["role"] == role:
                messages[-1]["content"] += "\n" + message.text
            else:
                messages.append({"role": role, "content": message.text})
        completion = await self.backend.complete(messages, max_tokens=self.max_tokens,
                                                 seed=self.seed + len(conversation))
        text = completion.text.strip()
        ranking = tuple(i for i in read_items(text, self.space) if i not in set(mentioned))
        return CrsReply(text, ranking, ranking[0] if ranking else None)

    async def aclose(self) -> None:
        await self.backend.aclose()
