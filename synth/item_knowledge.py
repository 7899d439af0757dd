"""Item knowledge from reviews: what reviewers liked and disliked, summarised by the configured LLM and
cached on disk, so each item is summarised once per model, prompt and set of reviews."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

from synth.domain import Domain
from synth.kv_store import KeyValueStore
from synth.llm.base import ChatBackend
from synth.llm.gguf_models import cache_dir
from synth.progress import progress_bar
from synth.prompting import PromptSet
from synth.records import Item, Review, verdict
from synth.replies import ReplyFormatError, extract_json

SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {
        "liked": {"type": "string", "minLength": 1, "maxLength": 200},
        "disliked": {"type": "string", "minLength": 1, "maxLength": 200},
    },
    "required": ["liked", "disliked"],
    "additionalProperties": False,
}


class SummaryCache:
    """A small SQLite table: key (hash of model, prompt, item and its reviews) -> JSON summary."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_dir().parent / "item_summaries.sqlite"
        self._store = KeyValueStore(self.path, "summary")

    def get(self, key: str) -> dict[str, str] | None:
        value = self._store.get(key)
        return json.loads(value) if value is not None else None

    def put(self, key: str, value: dict[str, str]) -> None:
        self._store.put(key, json.dumps(value))

    def close(self) -> None:
        self._store.close()


def summary_key(model: str, prompt_hash: str, item: Item, reviews: list[Review]) -> str:
    texts = json.dumps([model, prompt_hash, item.id, sorted((r.user, r.text, r.score) for r in reviews)])
    return hashlib.sha256(texts.encode()).hexdigest()


def parse_summary(text: str) -> dict[str, str]:
    data = extract_json(text)
    if not all(isinstance(data.get(k), str) and data[k].strip() for k in ("liked", "disliked")):
        raise ReplyFormatError("summary needs non-empty 'liked' and 'disliked'")
    return {"liked": data["liked"].strip(), "disliked": data["disliked"].strip()}


async def summarize_items(
    catalog: dict[str, Item],
    reviews: list[Review],
    backend: ChatBackend,
    cache: SummaryCache,
    *,
    max_reviews: int = 8,
    seed: int = 0,
    progress: bool = True,
    domain: Domain | None = None,
) -> tuple[dict[str, Item], dict[str, int]]:
    """The catalog with "Reviewers liked ...; disliked ..." added to each reviewed item's description."""
    await backend.check()  # resolves the model, whose name is part of every cache key
    model = backend.model_info.name
    prompts = PromptSet.load(mode="item_summary", domain=domain)
    by_item: dict[str, list[Review]] = defaultdict(list)
    for review in reviews:
        by_item[review.item].append(review)
    counts = {"summaries_cached": 0, "summaries_made": 0, "summaries_failed": 0}
    described = dict(catalog)
    with progress_bar(progress, "item summaries") as bar:
        task = bar.add_task("", total=len(by_item))
        for item_id in sorted(by_item):
            item = catalog[item_id]
            sample = sorted(by_item[item_id], key=lambda r: (r.user, r.text))[:max_reviews]
            key = summary_key(model, prompts.hashes["item_summary"], item, sample)
            summary = cache.get(key)
            if summary is None:
                summary = await _summarize(item, sample, backend, prompts, seed)
                if summary is None:
                    counts["summaries_failed"] += 1
                else:
                    cache.put(key, summary)
                    counts["summaries_made"] += 1
            else:
                counts["summaries_cached"] += 1
            if summary:
                text = f"Reviewers liked: {summary['liked']} Disliked: {summary['disliked']}"
                described[item_id] = item.model_copy(update={"description": f"{item.description} {text}".strip()})
            bar.advance(task)
    return described, counts


async def _summarize(item: Item, reviews: list[Review], backend: ChatBackend, prompts: PromptSet, seed: int) -> dict[str, str] | None:
    """One LLM summary, retried once; None when the model never answers in format."""
    shown = [{"verdict": verdict(r), "text": r.text} for r in reviews]
    messages = [{"role": "user", "content": prompts.render("item_summary", item=item, reviews=shown)}]
    for attempt in range(2):
        completion = await backend.complete(
            messages, max_tokens=120, temperature=0.0 if attempt == 0 else 0.7, seed=seed + attempt, json_schema=SUMMARY_SCHEMA
        )
        try:
            return parse_summary(completion.text)
        except ReplyFormatError:
            continue
    return None
