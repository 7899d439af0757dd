"""Is the benchmark able to see a gain? A planted positive and a planted negative from one training set
(`synth benchmark --planted`): the set split in two seeded halves; trained on one half against both halves (real
data added: a gain every baseline that learns from data should show) and against the half plus the other half with
its item mentions shuffled across dialogues (the same words and items, the links between what a seeker says and
what is recommended broken: no gain to see). The half-width of each positive's paired interval is the smallest
gain that baseline can tell from zero at these test sizes."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from synth.benchmarks.crs.datasets import BenchmarkDataset, Conversation, Utterance
from synth.benchmarks.crs.items import ItemSpace
from synth.data.movielens import split_title
from synth.errors import SynthError

HALF, BOTH, SHUFFLED = "half", "both", "shuffled"


def planted_sets(dataset: BenchmarkDataset, space: ItemSpace, seed: int) -> list[BenchmarkDataset]:
    """The three training sets of the instrument: `half` (a seeded half of `dataset`'s dialogues), `both` (that
    half, then the other), `shuffled` (that half, then the other with its mentions shuffled)."""
    conversations = dataset.conversations
    if len(conversations) < 4:
        raise SynthError(f"--planted needs a training set of at least 4 dialogues; '{dataset.label}' has "
                         f"{len(conversations)}")
    order = list(range(len(conversations)))
    random.Random(f"planted-{seed}").shuffle(order)
    cut = len(order) // 2
    first = [conversations[i] for i in sorted(order[:cut])]
    second = [conversations[i] for i in sorted(order[cut:])]
    shuffled = shuffle_mentions(second, space, seed)

    def named(label: str, added: list[Conversation]) -> BenchmarkDataset:
        return replace(dataset, label=label, conversations=first + added,
                       fingerprint=f"{dataset.fingerprint}:planted:{label}:{seed}")

    return [named(HALF, []), named(BOTH, second), named(SHUFFLED, shuffled)]


def shuffle_mentions(conversations: Sequence[Conversation], space: ItemSpace, seed: int) -> list[Conversation]:
    """`conversations` with every item mention moved to a random place among all of their mentions (seeded): each
    utterance keeps its words and its number of mentions, each item its number of mentions, but an utterance now
    names items from other dialogues; the text names the new item where it named the old one."""
    mentions = [item for conversation in conversations for utterance in conversation.utterances for item in utterance.items]
    random.Random(f"planted-shuffle-{seed}").shuffle(mentions)
    drawn = iter(mentions)
    shuffled = []
    for conversation in conversations:
        utterances = []
        for utterance in conversation.utterances:
            new_items = tuple(next(drawn) for _ in utterance.items)
            text = utterance.text
            for old, new in zip(utterance.items, new_items):
                text = _renamed(text, space.items[old].title, space.items[new].display)
            utterances.append(Utterance(utterance.role, text, new_items))
        shuffled.append(Conversation(f"{conversation.id}:shuffled", tuple(utterances)))
    return shuffled


def _renamed(text: str, old_title: str, new_name: str) -> str:
    """`text` with the first naming of `old_title` (with or without its year) replaced by `new_name`."""
    title = split_title(old_title)[0]
    pattern = re.compile(rf"(?<!\w){re.escape(title)}(?:\s*\(\d{{4}}\))?(?!\w)", re.IGNORECASE)
    return pattern.sub(lambda _: new_name, text, count=1)


def instrument(comparisons: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model, test set and key metric: the planted positive (half -> both) and negative (half -> shuffled)
    differences with their paired intervals, whether each is seen (the interval leaves out 0; the negative counts
    as seen only as a gain), and the smallest gain the row can see (the positive interval's half-width)."""
    rows: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for c in comparisons:
        if c["first"] != HALF or c["second"] not in (BOTH, SHUFFLED) or c["ci95"] is None:
            continue
        row = rows.setdefault((c["task"], c["model"], c["test"], c["metric"]),
                              {"task": c["task"], "model": c["model"], "test": c["test"], "metric": c["metric"]})
        low, high = c["ci95"]
        if c["second"] == BOTH:
            row |= {"positive": c["difference"], "positive_ci95": c["ci95"], "positive_seen": low > 0,
                    "smallest_gain": round((high - low) / 2, 4)}
        else:
            row |= {"negative": c["difference"], "negative_ci95": c["ci95"], "negative_seen_as_gain": low > 0}
    return list(rows.values())
