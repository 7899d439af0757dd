"""Persona summaries (PEARL's): each seeker's likes and dislikes condensed by the configured LLM into a few
sentences, from the user's best- and worst-rated items, and cached on disk like the item summaries."""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
import json
import re

from synth.domain import Domain
from synth.item_knowledge import SummaryCache
from synth.llm.base import ChatBackend
from synth.llm.gguf_models import cache_dir
from synth.personas import GameSpec, ReviewIndex
from synth.progress import progress_bar
from synth.prompting import PromptSet
from synth.records import Item, Review, verdict
from synth.replies import ReplyFormatError, extract_json

PERSONA_SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string", "minLength": 1, "maxLength": 400}},
    "required": ["summary"],
    "additionalProperties": False,
}


def persona_summary_cache() -> SummaryCache:
    """The on-disk cache of persona summaries, beside the item summaries' ($SYNTH_CACHE_DIR moves both)."""
    return SummaryCache(cache_dir().parent / "persona_summaries.sqlite")


def shown_ratings(
    reviews: ReviewIndex, user_id: str, catalog: dict[str, Item], *, liked: int = 6, disliked: int = 4
) -> tuple[list[Review], list[Review]]:
    """The user's `liked` best-scored and `disliked` worst-scored catalog items (none shown twice), best
    first and worst first; ties go by item id, so the choice is the same on every run."""
    table = reviews.table
    code = table.user_code(user_id)
    if code is None:
        return [], []

    def item_id(row: int) -> str:
        return str(table.item_ids[table.item[row]])

    rows = [row for row in table.rows_of(code) if item_id(row) in catalog]
    best = heapq.nsmallest(liked, rows, key=lambda r: (-float(table.score[r]), item_id(r)))
    taken = set(best)
    worst = heapq.nsmallest(
        disliked, (r for r in rows if r not in taken), key=lambda r: (float(table.score[r]), item_id(r))
    )
    return [reviews.review(r) for r in best], [reviews.review(r) for r in worst]


def persona_summary_key(model: str, prompt_hash: str, user_id: str, shown: list[Review], catalog: dict[str, Item]) -> str:
    """sha256 of the model, the prompt, the user and everything the prompt shows of their ratings."""
    rows = [
        [r.item, catalog[r.item].display, catalog[r.item].genres, r.rating, r.score, r.scale, r.text, r.tags]
        for r in shown
    ]
    return hashlib.sha256(json.dumps([model, prompt_hash, user_id, rows]).encode()).hexdigest()


def parse_persona_summary(text: str, titles: list[str]) -> str:
    """The reply's non-empty `summary`; one that names a shown title is refused (it could give the seeker
    the title of the movie it hopes for). Titles match whole words, case-sensitively."""
    summary = extract_json(text).get("summary")
    if not isinstance(summary, str) or not summary.strip():
        raise ReplyFormatError("persona summary needs a non-empty 'summary'")
    for title in titles:
        if re.search(rf"(?<!\w){re.escape(title)}(?!\w)", summary):
            raise ReplyFormatError(f"persona summary names a movie: {title!r}")
    return summary.strip()


async def summarize_personas(
    specs: list[GameSpec],
    reviews: ReviewIndex,
    catalog: dict[str, Item],
    backend: ChatBackend,
    cache: SummaryCache,
    *,
    seed: int = 0,
    progress: bool = True,
    shown_liked: int = 6,
    shown_disliked: int = 4,
    domain: Domain | None = None,
) -> tuple[list[GameSpec], dict[str, int]]:
    """The specs with `persona.summary` set for every user whose summary was cached or made, and the counts
    persona_summaries_cached/made/failed (one summary per distinct user; a failed one stays None)."""
    await backend.check()  # resolves the model, whose name is part of every cache key
    model = backend.model_info.name
    prompts = PromptSet.load(mode="persona_summary", domain=domain)
    counts = {"persona_summaries_cached": 0, "persona_summaries_made": 0, "persona_summaries_failed": 0}
    summaries: dict[str, str | None] = {}
    users = sorted({spec.persona.user_id for spec in specs})
    with progress_bar(progress, "persona summaries") as bar:
        task = bar.add_task("", total=len(users))
        for user in users:
            liked, disliked = shown_ratings(reviews, user, catalog, liked=shown_liked, disliked=shown_disliked)
            key = persona_summary_key(model, prompts.hashes["persona_summary"], user, liked + disliked, catalog)
            cached = cache.get(key)
            if cached is not None:
                summaries[user] = cached["summary"]
                counts["persona_summaries_cached"] += 1
            else:
                summaries[user] = await _summarize(liked, disliked, catalog, backend, prompts, seed)
                if summaries[user] is None:
                    counts["persona_summaries_failed"] += 1
                else:
                    cache.put(key, {"summary": summaries[user]})
                    counts["persona_summaries_made"] += 1
            bar.advance(task)
    summarised = [
        dataclasses.replace(spec, persona=spec.persona.model_copy(update={"summary": summaries[spec.persona.user_id]}))
        for spec in specs
    ]
    return summarised, counts


async def _summarize(
    liked: list[Review], disliked: list[Review], catalog: dict[str, Item], backend: ChatBackend, prompts: PromptSet, seed: int
) -> str | None:
    """One LLM summary, retried once warmer with the next seed; None when the model never answers in format."""
    if not liked:
        return None

    def shown(review: Review) -> dict[str, object]:
        item = catalog[review.item]
        return {"display": item.display, "genres": item.genres, "verdict": verdict(review), "stars": review.stars,
                "tags": review.tags, "text": review.text}

    prompt = prompts.render("persona_summary", liked=[shown(r) for r in liked], disliked=[shown(r) for r in disliked])
    titles = [catalog[r.item].title for r in liked + disliked]
    for attempt in range(2):
        completion = await backend.complete(
            [{"role": "user", "content": prompt}], max_tokens=160, temperature=0.0 if attempt == 0 else 0.7,
            seed=seed + attempt, json_schema=PERSONA_SUMMARY_SCHEMA,
        )
        try:
            return parse_persona_summary(completion.text, titles)
        except ReplyFormatError:
            continue
    return None
