"""Cheap deterministic detectors of sentences a reader would not believe: one speaker copying the other, a
speaker repeating itself, talk about "the Seeker" in the third person, a seeker praising a movie its own
review panned (or the reverse), a seeker naming the movie it secretly hopes for, and a recommender
describing one movie with another's description or the prompt's example; the context every check reads and
the word helpers they share. The turn loop re-samples a reply they flag (synth.simulators); `synth stats`
and the `quality` filter count them after the fact (synth.analysis.defects.checks runs them all)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from synth.data.title_match import normalise
from synth.records import Item
from synth.short_titles import ShortTitleRule, short_title
from synth.tokens import terms

Role = Literal["seeker", "recommender"]
COPY_WORDS = 8  # words in a row shared with the other speaker's last utterance that make a copy
SELF_REPEAT_SHARE = 0.6  # share of a reply's word 3-grams found in one earlier utterance of the same speaker
BORROW_WORDS = 5  # words in a row shared with another item's description or the prompt's example
RECITE_WORDS = 5  # words in a row shared with the seeker's own review of its hidden target
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_THIRD_PERSON = re.compile(r"\bthe\s+(?:seeker|recommender|user)s?\b|\b(?:Seeker|Recommender)s?\b", re.IGNORECASE)
# the turn's instructions or the reply format said as part of the reply
_INSTRUCTIONS = re.compile(
    r"\bIn about \d+ words\b|\[Instructions\b|not part of the chat|\bJSON format\b|\"(?:utterance|question|accept|think|item)\"\s*:",
    re.IGNORECASE,
)
_YEAR_SUFFIX = re.compile(r"\s*\(\d{4}\)\s*$")  # 'The Matrix (1999)' -> 'The Matrix'
_TITLE_WORD = r"(?:[A-Z0-9][\w'’.:,-]*|of|the|a|an|and|in|on|at|to|for|with)"
_TITLE_WITH_YEAR = re.compile(rf"[A-Z0-9][\w'’.:,-]*(?:\s+{_TITLE_WORD})*\s*\(\d{{4}}\)")
_POSITIVE = frozenset({"enjoyed", "enjoy", "loved", "love", "liked", "favorite", "favourite", "great", "amazing", "fantastic",
                       "awesome", "brilliant", "wonderful", "excellent", "masterpiece", "perfect", "best", "fun"})
_NEGATIVE = frozenset({"hated", "hate", "disliked", "boring", "bad", "terrible", "awful", "worst", "dull", "disappointing",
                       "disappointed", "mediocre", "weak", "overrated", "meh", "pointless"})
_NEGATION = frozenset({"not", "no", "never", "didn't", "don't", "wasn't", "isn't", "doesn't", "couldn't", "nothing",
                       "wouldn't", "can't", "hardly"})


@dataclass(frozen=True)
class Defect:
    """One detector's finding: its name and the words that show it."""

    name: str
    evidence: str

    def __str__(self) -> str:
        return f"{self.name}: {self.evidence}"


@dataclass(frozen=True)
class ReplyContext:
    """What a reply is checked against. `other_last`/`other_earlier`: the other side's last utterance and its
    earlier ones; `own_earlier`: this speaker's earlier unscripted ones; `liked`/`disliked`: titles the
    seeker's own reviews rate so (seeker); `hidden_target`: the seeker's secret target while it is not yet
    suggested, and `target_draw` what the seeker was told of it (its review); `descriptions`: title ->
    description of the items the recommender was shown; `examples`: the prompt's example utterances;
    `suggestion`: the title of the suggestion a seeker answers; `mentioned`: the titles suggested before;
    `question`: the turn's move asks the other side something; `accepting`: the seeker accepts its target with
    this reply; `closing`: the recommender's goodbye after the acceptance; `items`: the catalog items of the dialogue
    (reviewed, hoped for, shown), whose facts a reply must not contradict."""

    role: Role
    other_last: str = ""
    own_earlier: tuple[str, ...] = ()
    liked: tuple[str, ...] = ()
    disliked: tuple[str, ...] = ()
    hidden_target: str | None = None
    descriptions: dict[str, str] = field(default_factory=dict)
    examples: tuple[str, ...] = ()
    suggestion: str | None = None
    mentioned: tuple[str, ...] = ()
    other_earlier: tuple[str, ...] = ()
    target_draw: str | None = None
    question: bool | None = False  # None: the turn must ask unless it recommends
    accepting: bool = False
    closing: bool = False
    items: tuple[Item, ...] = ()
    short_titles: ShortTitleRule = "whole"  # the domain's rule: a long title may be said short (synth.short_titles)
    foreign_words: tuple[str, ...] = ()  # words of another domain's items ("movie" in a books run)

    @property
    def titles(self) -> tuple[str, ...]:
        """Every title the context knows: a title said again is naming a movie, not copying words."""
        known = (*self.liked, *self.disliked, *self.descriptions, self.hidden_target, self.suggestion, *self.mentioned)
        return tuple(title for title in known if title)


def words(text: str) -> list[str]:
    """Lower-case words (apostrophes kept inside a word)."""
    return terms(text.replace("’", "'"))


def ngrams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


@lru_cache(maxsize=16384)
def title_words(title: str) -> tuple[str, ...]:
    """A title's words without its year: 'The Matrix (1999)' -> ('the', 'matrix'). Cached: the checks ask for
    the same titles on every reply of a dialogue."""
    return tuple(words(_YEAR_SUFFIX.sub("", title)))


def masked(text: str, titles: Sequence[str]) -> list[str]:
    """The words of `text` with each known title (and the year after it) replaced by one token naming it, so
    that saying a long title again ('The Good, the Bad and the Ugly') is not copying, and two different titles
    stay different."""
    tokens = words(text)
    for title in sorted(titles, key=len, reverse=True):
        key = list(title_words(title))
        if not key or key[0] not in tokens:
            continue
        i = 0
        while i <= len(tokens) - len(key):
            if tokens[i] == key[0] and tokens[i : i + len(key)] == key:
                end = i + len(key) + (i + len(key) < len(tokens) and tokens[i + len(key)].isdigit())
                tokens[i:end] = ["§" + "_".join(key)]
            i += 1
    return tokens


def shared_run(text: str, other: str, n: int, titles: Sequence[str] = ()) -> str | None:
    """The first run of `n` words of `text` that `other` holds too (known `titles` masked), or None."""
    tokens = masked(text, titles)
    theirs = ngrams(masked(other, titles), n)
    return next((" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1) if tuple(tokens[i : i + n]) in theirs), None)


def mentions(text: str, title: str, short_titles: ShortTitleRule = "whole") -> bool:
    """Whether `text` names `title` (case, punctuation, a leading article and the year left aside), whole or,
    under a domain's `short_titles` rule, by its short form (synth.short_titles); a one-word title must keep its
    capital ('Heat', not the heat of a scene)."""
    short = short_title(_YEAR_SUFFIX.sub("", title).strip(), short_titles)
    return _names(text, title) or (short is not None and _names(text, short))


def _names(text: str, title: str) -> bool:
    found = _name_pattern(title)
    if found is None:
        return False
    pattern, one_word = found
    return pattern.search(text if one_word else _normalised(text)) is not None


@lru_cache(maxsize=16384)
def _name_pattern(title: str) -> tuple[re.Pattern[str], bool] | None:
    """How `_names` finds `title`: its pattern, and whether it is a one-word title matched in the raw text (to
    keep its capital); None for a title with no words. Cached: the same titles are looked for in every reply."""
    name = _YEAR_SUFFIX.sub("", title).strip()
    year = re.search(r"\((\d{4})\)\s*$", title)
    key = re.sub(r"^(?:the|a|an)\s+", "", normalise(name))
    if not key:
        return None
    sequel = rf"(?!\s*(?!{year.group(1)}\b)\d)" if year else r"(?!\s*\d)"  # 'Blade Runner 2049' is not 'Blade Runner'
    if " " not in key:
        return re.compile(rf"(?<!\w){re.escape(name.split()[-1])}(?!\w){sequel}"), True
    return re.compile(rf"(?<!\S){re.escape(key)}(?!\S){sequel}"), False


@lru_cache(maxsize=1024)
def _normalised(text: str) -> str:
    """normalise(text), kept for the texts searched for many titles in a row."""
    return normalise(text)


def copies_other(text: str, context: ReplyContext) -> Defect | None:
    run = shared_run(text, context.other_last, COPY_WORDS, context.titles) if context.other_last else None
    return None if run is None else Defect("copies_other", f'repeats "{run}" from the other speaker')


def repeats_itself(text: str, context: ReplyContext) -> Defect | None:
    """A sentence said twice in the same message, the same words as an earlier utterance of this speaker (3
    words or more), or SELF_REPEAT_SHARE of its word 3-grams from one of them (4 or more 3-grams, titles masked: "Have you seen X?" then "Have you seen
    Y?" is two questions, not a repeat)."""
    said = [" ".join(words(sentence)) for sentence in sentences(text)]
    twice = next((sentence for sentence in said if len(sentence.split()) >= 3 and said.count(sentence) > 1), None)
    if twice is not None:
        return Defect("repeats_itself", f'says "{twice[:80]}" twice in one message')
    tokens = masked(text, context.titles)
    mine = ngrams(tokens, 3)
    for earlier in context.own_earlier:
        theirs = masked(earlier, context.titles)
        if len(tokens) >= 3 and tokens == theirs:
            return Defect("repeats_itself", f'says again "{earlier[:80]}"')
        share = len(mine & ngrams(theirs, 3)) / len(mine) if len(mine) >= 4 else 0.0
        if share >= SELF_REPEAT_SHARE:
            return Defect("repeats_itself", f'{share:.0%} of its 3-grams repeat "{earlier[:80]}"')
    return None


def third_person(text: str, context: ReplyContext) -> Defect | None:
    """Speaks of "the Seeker" or "the Recommender" (speaking as the other side is synth.analysis.defects.state's
    `speaks_as_other`)."""
    found = _THIRD_PERSON.search(text)
    return None if found is None else Defect("third_person", f'speaks of "{found.group(0)}"')


def echoes_instructions(text: str, context: ReplyContext) -> Defect | None:
    """Says its turn's instructions or the reply format ("In about 5 words, say whether ...")."""
    found = _INSTRUCTIONS.search(text)
    return None if found is None else Defect("echoes_instructions", f'says its instructions: "{found.group(0)}"')


def sentences(text: str) -> list[str]:
    """The sentences of a text (split after ., ! and ?)."""
    return [part for part in _SENTENCE.split(text) if part.strip()]


def stance(sentence: str) -> int:
    """+1 where a sentence praises, -1 where it pans, 0 where it does neither or both: each stance word counts,
    turned round by a negation among the three words before it ("didn't enjoy", "not bad")."""
    tokens = words(sentence)
    score = 0
    for i, token in enumerate(tokens):
        sign = 1 if token in _POSITIVE else -1 if token in _NEGATIVE else 0
        if sign and any(t in _NEGATION or t.endswith("n't") for t in tokens[max(0, i - 3) : i]):
            sign = -sign
        score += sign
    return (score > 0) - (score < 0)


def contradicts_review(text: str, context: ReplyContext) -> Defect | None:
    """A sentence naming exactly one reviewed title with the opposite of the seeker's own verdict."""
    if context.role != "seeker":
        return None
    for sentence in sentences(text):
        named = [(t, +1) for t in context.liked if mentions(sentence, t, context.short_titles)]
        named += [(t, -1) for t in context.disliked if mentions(sentence, t, context.short_titles)]
        if len(named) != 1:
            continue
        title, verdict = named[0]
        said = stance(sentence)
        if said and said != verdict:
            own = "liked" if verdict > 0 else "panned"
            return Defect("contradicts_review", f'"{sentence.strip()[:100]}" about {title}, which its review {own}')
    return None


def names_target(text: str, context: ReplyContext) -> Defect | None:
    target = context.hidden_target
    if context.role != "seeker" or not target or not mentions(text, target, context.short_titles):
        return None
    return Defect("names_target", f"names its hidden target {target}")


def borrows_description(text: str, context: ReplyContext, named: str | None) -> Defect | None:
    """A recommender reply that reuses another shown item's description (not the one it names)."""
    if context.role != "recommender":
        return None
    own = context.descriptions.get(named or "", "")
    for title, description in context.descriptions.items():
        if title == named or not description:
            continue
        run = shared_run(text, description, BORROW_WORDS)
        if run is not None and (not own or run not in " ".join(words(own))):
            return Defect("borrows_description", f'describes with {title}\'s "{run}"')
    return None


def titles_with_years(text: str) -> list[str]:
    """The "Title (Year)" mentions of a text (capitalised words before a year in brackets)."""
    return [m.group(0) for m in _TITLE_WITH_YEAR.finditer(text)]


def copies_example(text: str, context: ReplyContext) -> Defect | None:
    """A reply that reuses words of its prompt's example exchange; titles do not count (a reply may suggest the
    example's movie: "Have you seen The Notebook?" is not a copy of "Have you seen The Notebook (2004)? ...")."""
    for example in context.examples:
        run = shared_run(text, example, BORROW_WORDS, (*context.titles, *titles_with_years(example), *titles_with_years(text)))
        if run is not None:
            return Defect("copies_example", f'copies the prompt\'s example "{run}"')
    return None
