"""The blind items of a rating round: a seeded sample of each source's dialogues, shown as turns of plain text
(ReDial's movie mentions as titles, synth's markup left out), paired across sources (head to head, each side drawn
at random) or one at a time (defects); opaque seeded ids; shared out among the raters, each rater's order shuffled
with its own seed."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from itertools import combinations

from synth.analysis.stats.corpus import Corpus, utterance_text
from synth.data.dialogues import merge_turns
from synth.data.mentions import clean_text
from synth.errors import SynthError
from synth.rating.protocols import Protocol

Turn = tuple[str, str]  # role, text


@dataclass(frozen=True)
class Shown:
    """A dialogue as a rater reads it, with where it came from (which never reaches the page)."""

    source: str
    dialogue: str
    turns: list[Turn]


@dataclass(frozen=True)
class BlindItem:
    token: str  # the opaque id on the page
    dialogues: list[Shown]  # head to head: left, right; defects: the one


def shown_dialogues(corpus: Corpus) -> list[Shown]:
    """The corpus's dialogues (its sample, when it has one) as turns of text, a speaker's messages as one turn,
    without synth's markup (the end marker, emphasis), which would tell a generated dialogue from a human one; a
    dialogue without turns is left out."""
    shown = []
    for dialogue, _ in corpus:
        merged = merge_turns(dialogue)
        if merged.turns:
            turns = [(turn.role, clean_text(utterance_text(merged, turn))) for turn in merged.turns]
            shown.append(Shown(corpus.name, dialogue.id, turns))
    return shown


def blind_items(protocol: Protocol, sources: list[list[Shown]], seed: int) -> list[BlindItem]:
    """Every item, shuffled: head to head, the dialogues of each pair of sources paired at random (as many pairs
    as the smaller sample holds), each pair's sides drawn; defects, every dialogue of every source."""
    rng = random.Random(seed)
    shuffled = [rng.sample(dialogues, len(dialogues)) for dialogues in sources]
    if protocol == "head-to-head":
        if len(sources) < 2:
            raise SynthError("head to head needs two sources or more")
        groups = [[a, b] if rng.random() < 0.5 else [b, a]
                  for first, second in combinations(shuffled, 2) for a, b in zip(first, second)]
    else:
        groups = [[dialogue] for dialogues in shuffled for dialogue in dialogues]
    tokens: dict[str, None] = {}  # random, distinct, in the order drawn
    while len(tokens) < len(groups):
        tokens[f"{rng.getrandbits(40):010x}"] = None
    items = [BlindItem(token, group) for token, group in zip(tokens, groups)]
    return rng.sample(items, len(items))


def share_out(
    items: list[BlindItem], raters: list[str], overlap: float, seed: int
) -> tuple[dict[str, list[BlindItem]], list[BlindItem]]:
    """Each rater's items in their page's order, and the items every rater got: the first `overlap` share of the
    (shuffled) items goes to all, the rest are dealt out in turn; each page's order is shuffled with the seed and
    the rater's name."""
    shared = items[: round(overlap * len(items))] if len(raters) > 1 else []
    dealt: dict[str, list[BlindItem]] = {rater: list(shared) for rater in raters}
    for position, item in enumerate(items[len(shared):]):
        dealt[raters[position % len(raters)]].append(item)
    pages = {rater: random.Random(f"{seed}:{rater}").sample(mine, len(mine)) for rater, mine in dealt.items()}
    return pages, shared


def round_fingerprint(protocol: Protocol, criteria: dict[str, str], items: list[BlindItem]) -> str:
    """The round's id: a hash of what the pages show (protocol, criteria, each item's id and text), so that two
    rounds' pages never share the browser's saved progress, and nothing of the sources goes into it."""
    shown = [[item.token, [dialogue.turns for dialogue in item.dialogues]] for item in items]
    text = json.dumps([protocol, criteria, shown], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]
