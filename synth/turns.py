"""The turn loop every game plays (PEARL and GoRecDial generation, and the GoRecDial benchmark's trained
experts): the scripted seed exchange, then recommender and seeker in turn until a seeker reply ends the game
or the turn cap is hit. A game plugs in its `Moves` (how each side's turn is played and what ends the game);
the loop owns the order of turns, their seeds, the cap and the error capture."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from synth.analysis.defects import ReplyContext, next_history
from synth.domain import Domain, load_domain
from synth.llm.retries import EndpointUnavailable
from synth.records import Item, Outcome, Turn
from synth.replies import RecommenderReply
from synth.simulators import Line

Role = Literal["seeker", "recommender"]
Unfinished = Literal["turn_cap", "error"]


def seed_exchange(domain: Domain) -> tuple[tuple[Role, str], ...]:
    """The two scripted opening lines in the domain's words. The recommender opens, so the turns after the
    seed run recommender, seeker, ... and a dialogue that hits an even turn cap ends on the seeker: no
    recommendation is left unanswered."""
    return (("recommender", domain.greeting), ("seeker", domain.seeker_opening))


SEED_EXCHANGE = seed_exchange(load_domain())  # the movies profile's
GREETING_ONLY: tuple[tuple[Role, str], ...] = SEED_EXCHANGE[:1]  # --strategy human: the seeker's first line is its own


def opening(strategy: str, domain: Domain | None = None) -> tuple[tuple[Role, str], ...]:
    """The scripted opening in the domain's words (movies by default): the seed exchange, or only the greeting
    where a plan has the seeker open (human)."""
    lines = SEED_EXCHANGE if domain is None else seed_exchange(domain)
    return lines[:1] if strategy == "human" else lines


SEED_STRIDE = 100  # utterance `step` of a dialogue is sampled with seed `dialogue seed + SEED_STRIDE * step`


def transcript(turns: Sequence[Turn], me: Role) -> list[Line]:
    """The dialogue so far as side `me` sees it: its own lines and the other side's (the prompts give them to
    the model as its own chat turns and the other person's, so that a reply keeps its role)."""
    return [Line(t.text, own=t.role == me) for t in turns]


class Moves(Protocol):
    """What one game plugs into the loop, for one dialogue. Steps count utterances after the two lines of the
    seed exchange: even steps are the recommender's, odd ones the seeker's (a one-line script, the greeting
    alone, starts at step -1, the seeker's)."""

    def open(self, script: Sequence[tuple[Role, str]]) -> None:
        """Write the scripted opening turns."""

    async def recommender_turn(self, step: int, seed: int) -> None:
        """Play the recommender's (or expert's) turn."""

    async def seeker_turn(self, step: int, seed: int) -> Outcome | None:
        """Play the seeker's turn; the outcome when this reply ends the game, else None."""

    def unfinished(self, ended_by: Unfinished) -> Outcome:
        """The outcome of a game that no seeker reply ended."""


class RecordMoves:
    """Moves that write the record's `Turn`s: the common part of the generation games."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.recommendations = 0
        self.scripted = 0  # turns the game wrote rather than the models

    def open(self, script: Sequence[tuple[Role, str]]) -> None:
        """The scripted opening as the record's first turns."""
        self.turns = [Turn(role=role, text=text) for role, text in script]
        self.scripted = len(script)

    def add_recommender_turn(self, reply: RecommenderReply, **details: Any) -> None:
        """The recommender's (or expert's) reply as the record's next turn; `details` are the mode's own
        Turn fields (candidates, decision, correct)."""
        self.turns.append(Turn(role="recommender", text=reply.utterance, think=reply.think or None,
                               recommended_item=reply.item_id, checks=reply.checks, **details))

    def seeker_first(self) -> bool:
        """Whether the seeker has said nothing yet (its scripted opening counts)."""
        return all(t.role != "seeker" for t in self.turns)

    def last_words(self) -> str:
        """The last utterance so far (the one the next turn answers); '' before any."""
        return self.turns[-1].text if self.turns else ""

    def history(self, role: Role) -> tuple[str, tuple[str, ...]]:
        """What a reply by `role` about to be added is checked against: the other side's last utterance and
        its own earlier unscripted ones (synth.analysis.defects)."""
        return next_history([(t.role, t.text) for t in self.turns], role, self.scripted)

    def suggested_titles(self, catalog: Mapping[str, Item]) -> tuple[str, ...]:
        """The titles of the items recommended so far, in order."""
        return tuple(catalog[t.recommended_item].display for t in self.turns if t.recommended_item)

    def reply_context(self, role: Role, catalog: Mapping[str, Item], **known: Any) -> ReplyContext:
        """What a reply by `role` about to be added is checked against: the words so far (the other side's
        last and earlier utterances, its own), the titles suggested so far, and what the game `known`s."""
        other = tuple(t.text for t in self.turns if t.role != role)
        return ReplyContext(role, *self.history(role), other_earlier=other, mentioned=self.suggested_titles(catalog), **known)


@dataclass(frozen=True)
class Ending:
    """How the loop ended: the outcome, how many opening turns were scripted, and the error that ended it."""

    outcome: Outcome
    scripted_turns: int
    error: str | None = None

    def errors(self, details: Sequence[str] = ()) -> list[str]:
        """The record's `errors`: the error first, then its `details` (e.g. each failed attempt); [] if none."""
        return [self.error, *details] if self.error is not None else []


async def play_turns(
    moves: Moves, *, seed: int, max_utterances: int, script: Sequence[tuple[Role, str]] = SEED_EXCHANGE
) -> Ending:
    """Play one game: the scripted opening, then utterances up to `max_utterances` after the seed exchange's
    two lines (a shorter script leaves its place to generated lines, so the cap on the whole dialogue is the
    same). An exception ends the game as 'error' with its text: one bad dialogue must never end the run; a
    server that stays unavailable (EndpointUnavailable) ends the run instead, the game unwritten."""
    moves.open(script)
    try:
        for step in range(len(script) - len(SEED_EXCHANGE), max_utterances):
            step_seed = seed + SEED_STRIDE * step
            if step % 2 == 0:
                await moves.recommender_turn(step, step_seed)
                continue
            outcome = await moves.seeker_turn(step, step_seed)
            if outcome is not None:
                return Ending(outcome, len(script))
    except EndpointUnavailable:
        raise
    except Exception as exc:  # one bad dialogue must never end the run: record it and go on
        return Ending(moves.unfinished("error"), len(script), f"{type(exc).__name__}: {exc}")
    return Ending(moves.unfinished("turn_cap"), len(script))
