"""Is the benchmark able to see a gain? A planted positive and a planted negative from one training set
(`synth benchmark --planted`): the set split in two seeded halves; trained on one half against both halves (real
data added: a gain every baseline that learns from dialogues should show) and against the half plus the other half
with its recommender turns, and the movies they mention, shuffled across dialogues (the same words, the same items
recommended as often, but what a seeker says no longer leads to the reply and the movie it gets: nothing to gain
for a model that reads the dialogue). The half-width of each positive's paired interval is the smallest gain that
baseline can tell from zero at these test sizes."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from synth.benchmarks.crs.datasets import BenchmarkDataset, Conversation
from synth.errors import SynthError

HALF, BOTH, SHUFFLED = "half", "both", "shuffled"


def planted_sets(dataset: BenchmarkDataset, seed: int) -> list[BenchmarkDataset]:
    """The three training sets of the instrument: `half` (a seeded half of `dataset`'s dialogues), `both` (that
    half, then the other), `shuffled` (that half, then the other with its replies shuffled across dialogues)."""
    conversations = dataset.conversations
    if len(conversations) < 4:
        raise SynthError(f"--planted needs a training set of at least 4 dialogues; '{dataset.label}' has "
                         f"{len(conversations)}")
    order = list(range(len(conversations)))
    random.Random(f"planted-{seed}").shuffle(order)
    cut = len(order) // 2
    first = [conversations[i] for i in sorted(order[:cut])]
    second = [conversations[i] for i in sorted(order[cut:])]
    shuffled = shuffle_replies(second, seed)

    def named(label: str, added: list[Conversation]) -> BenchmarkDataset:
        conversations = first + added  # a fitted model is cached under its data's digest, not under the label
        digest = hashlib.sha256(repr([(c.id, c.utterances) for c in conversations]).encode()).hexdigest()
        return replace(dataset, label=label, conversations=conversations, fingerprint=f"planted:{digest}")

    return [named(HALF, []), named(BOTH, second), named(SHUFFLED, shuffled)]


def shuffle_replies(conversations: Sequence[Conversation], seed: int) -> list[Conversation]:
    """`conversations` with every recommender utterance (its words and the items it names) moved to a random
    recommender place among all of theirs (seeded): the seekers' turns stay, each reply and each recommended item
    is there as often as before, but every reply now answers another dialogue's seeker."""
    replies = [u for conversation in conversations for u in conversation.utterances if u.role == "recommender"]
    random.Random(f"planted-shuffle-{seed}").shuffle(replies)
    drawn = iter(replies)
    return [Conversation(f"{c.id}:shuffled", tuple(next(drawn) if u.role == "recommender" else u for u in c.utterances))
            for c in conversations]


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
