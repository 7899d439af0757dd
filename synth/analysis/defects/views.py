"""Utterances with what each is checked against: built the same way in the turn loop (one reply at a time)
and for a whole dialogue after the fact (a synth record with its catalog, or any dataset's dialogue)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from synth.analysis.defects.detectors import ReplyContext, Role
from synth.analysis.defects.state import QUESTION_ACTS
from synth.data.dialogues import Dialogue
from synth.records import DialogueRecord, Item, Review, TurnPlan, verdict

Opinions = Callable[[str, str], "str | None"]  # (user, item id) -> the user's verdict ("loved it", ..., "disliked it")


@dataclass(frozen=True)
class Spoken:
    """One generated (or human) utterance: its text, what it is checked against, the title of the item it
    recommends or answers about, whether it turns a suggestion down, and whether its context knows the
    persona and the items shown (a synth record) or only the words of the dialogue (any dataset)."""

    role: Role
    text: str
    context: ReplyContext
    named: str | None = None
    rejection: bool = False
    known: bool = False
    turn: int | None = None  # its index in the dialogue's turns
    recommends: str | None = None  # the title of the item it recommends


def history(turns: Sequence[tuple[str, str]], index: int, scripted: int) -> tuple[str, tuple[str, ...]]:
    """Before utterance `index` of (role, text) turns: the other speaker's last utterance and this speaker's
    earlier unscripted ones."""
    role = turns[index][0]
    other = next((text for who, text in reversed(turns[:index]) if who != role), "")
    own = tuple(text for who, text in turns[scripted:index] if who == role)
    return other, own


def other_earlier(turns: Sequence[tuple[str, str]], index: int) -> tuple[str, ...]:
    """Before utterance `index`: every utterance of the other speaker (the scripted ones too)."""
    return tuple(text for who, text in turns[:index] if who != turns[index][0])


def next_history(turns: Sequence[tuple[str, str]], role: str, scripted: int) -> tuple[str, tuple[str, ...]]:
    """`history` of a reply by `role` about to follow (role, text) `turns`."""
    return history([*turns, (role, "")], len(turns), scripted)


def target_draw(review: Review, item: Item) -> str:
    """What the seeker's own data says of its target: its review, else (ratings only) its tags and what the
    item is."""
    if review.text:
        return review.text
    tags = f"You tagged it: {', '.join(review.tags)}. " if review.tags else ""
    return tags + (item.description or ", ".join(item.genres))


def question_move(role: str, plan: TurnPlan | None, recommends: bool) -> bool:
    """Whether a turn's move asks the other side something: a planned question (QUESTION_ACTS), or a
    recommender's unplanned turn that recommends nothing (its prompt asks it to ask)."""
    if plan is not None:
        return bool(QUESTION_ACTS & set(plan.acts))
    return role == "recommender" and not recommends


def taste(reviews: Sequence[Review], catalog: Mapping[str, Item]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Titles of the reviewed items the user liked (or loved) and disliked."""
    liked = tuple(catalog[r.item].display for r in reviews if r.item in catalog and verdict(r) in ("loved it", "liked it"))
    disliked = tuple(catalog[r.item].display for r in reviews if r.item in catalog and verdict(r) == "disliked it")
    return liked, disliked


def split_opinion(title: str, opinion: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A suggestion's title among the liked or disliked ones, by the seeker's own verdict of it."""
    if opinion in ("loved it", "liked it"):
        return (title,), ()
    return ((), (title,)) if opinion == "disliked it" else ((), ())


def own_items(record: DialogueRecord) -> dict[str, Item]:
    """The items a record names itself (its target, a GoRecDial game's movies)."""
    game = record.gorecdial
    items = [record.target_item, *(game.candidates + game.seeker_items if game is not None else [])]
    return {item.id: item for item in items}


def dialogue_items(record: DialogueRecord, catalog: Mapping[str, Item], turns: int | None = None) -> tuple[Item, ...]:
    """The catalog items of a dialogue: the persona's reviewed ones, the target, a GoRecDial game's movies and
    every candidate shown in its first `turns` turns (all of them: None), as the turn loop knew them."""
    ids = [r.item for r in record.persona.general] if record.persona else []
    ids += [record.target_item.id, *own_items(record)]
    ids += [c.item_id for t in record.turns[:turns] for c in t.candidates or []]
    return tuple(catalog[i] for i in dict.fromkeys(ids) if i in catalog)


def record_utterances(
    record: DialogueRecord, catalog: Mapping[str, Item] | None = None, opinions: Opinions | None = None,
    examples: tuple[str, ...] = (),
) -> list[Spoken]:
    """The unscripted utterances of a synth record, each with the context the turn loop checks it against:
    the persona's reviewed titles (and, given `opinions`, its verdict of the suggestion it answers), the target
    while not yet suggested, the descriptions of the items shown to the recommender, the prompts' `examples`.
    `catalog` is the run's items (items.jsonl); without it only the items the record names itself are known."""
    catalog = {**own_items(record), **(catalog or {})}
    turns = [(t.role, t.text) for t in record.turns]
    liked, disliked = taste(record.persona.general, catalog) if record.persona else ((), ())
    if record.gorecdial is not None:  # the seeker loves its five movies and does not know which candidate is right
        liked = tuple(item.display for item in record.gorecdial.seeker_items)
    target_item = catalog.get(record.target_item.id, record.target_item)
    target = None if record.gorecdial is not None else target_item.display
    draw = target_draw(record.persona.target, target_item) if record.persona else None
    suggested: str | None = None  # the item the seeker answers
    mentioned: tuple[str, ...] = ()  # titles recommended so far
    target_shown = False
    found: list[Spoken] = []
    for index, turn in enumerate(record.turns):
        other, own = history(turns, index, record.scripted_turns)
        said = other_earlier(turns, index)
        items = dialogue_items(record, catalog, index + 1)
        if turn.role == "recommender":
            shown = [c.item_id for c in turn.candidates or []] + ([suggested] if suggested and not turn.candidates else [])
            descriptions = {catalog[i].display: catalog[i].description or "" for i in shown if i in catalog}
            recommends = catalog[turn.recommended_item].display if turn.recommended_item in catalog else None
            named = recommends or (catalog[suggested].display if suggested in catalog and not turn.candidates else None)
            context = ReplyContext("recommender", other, own, descriptions=descriptions, examples=examples,
                                   mentioned=mentioned, other_earlier=said, items=items,
                                   question=question_move("recommender", turn.plan, turn.recommended_item is not None),
                                   closing=any(t.accepted for t in record.turns[:index]))
            if turn.recommended_item:
                suggested = turn.recommended_item
                mentioned += (catalog[suggested].display,) if suggested in catalog else ()
                target_shown |= turn.recommended_item == record.target_item.id
            if index >= record.scripted_turns:
                found.append(Spoken("recommender", turn.text, context, named, known=True, turn=index, recommends=recommends))
            continue
        more_liked, more_disliked = ((), ())
        if suggested and opinions is not None and suggested in catalog:
            more_liked, more_disliked = split_opinion(catalog[suggested].display, opinions(record.user_id, suggested))
        context = ReplyContext("seeker", other, own, liked + more_liked, disliked + more_disliked,
                               hidden_target=None if target_shown else target, examples=examples,
                               suggestion=catalog[suggested].display if suggested in catalog else None,
                               mentioned=mentioned, other_earlier=said, target_draw=None if target_shown else draw,
                               question=question_move("seeker", turn.plan, False), items=items,
                               accepting=turn.accepted is True)
        if index >= record.scripted_turns:
            found.append(Spoken("seeker", turn.text, context, rejection=turn.accepted is False, known=True, turn=index))
        if turn.accepted is not None:
            suggested = None
    return found


def dialogue_utterances(dialogue: Dialogue, scripted: int = 0) -> list[Spoken]:
    """The utterances of any dataset's dialogue with what can be checked without a persona: each other's
    words and their own earlier ones."""
    turns = [(t.role, t.text) for t in dialogue.turns]
    return [
        Spoken(role, text, ReplyContext(role, *history(turns, index, scripted), other_earlier=other_earlier(turns, index)),
               turn=index)
        for index, (role, text) in enumerate(turns)
        if index >= scripted
    ]
