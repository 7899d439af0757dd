"""One dialogue's plan: the strategy model's draw for each turn, limited to what the game's rules allow at
that moment (a plan yields to the rules: the target is accepted when offered, a question about a suggestion
is answered before anything new is suggested, the last recommender turn recommends)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from synth.analysis.acts.taxonomy import Role
from synth.records import TurnPlan
from synth.strategy.model import FEEDBACK, Context, StrategyModel, acts_of, recommends, requests

Allowed = Callable[[tuple[str, ...]], bool]
ASKS_FOR_MORE = ("CON", "REF", "STO")  # the seeker asks for another suggestion: a rejection in the game
CLOSING_ACTS = frozenset({"OTH", "RESP"})  # what the recommender may say after an accepted target: thanks, goodbye


def _rng(seed: int) -> random.Random:
    return random.Random(f"strategy:{seed}")


def recommender_allowed(*, answering: bool, can_recommend: bool, must_recommend: bool, requests_left: int | None) -> Allowed:
    """The recommender's act sets the rules allow: an answer (R-ANS, nothing new suggested) to the seeker's
    question about a suggestion; no suggestion when nothing is left to suggest; a suggestion on the last turn;
    and, before the first suggestion, the planned number of requests (`requests_left`; None once past)."""
    if answering:
        return lambda acts: "R-ANS" in acts and not recommends(acts)
    if not can_recommend:
        return lambda acts: not recommends(acts)
    if must_recommend or requests_left == 0:
        return recommends
    if requests_left:
        return lambda acts: requests(acts) and not recommends(acts)
    return lambda acts: True


def seeker_allowed(*, suggestion: bool, target: bool | None, may_ask: bool) -> Allowed:
    """The seeker's act sets the rules allow. Without a suggestion to answer: no feedback. With one: the
    target (`target` True) is accepted, other suggestions (False) are not, and where `may_ask` the seeker may
    first ask about it (INQ), alone; `target` None (GoRecDial) leaves the decision to the seeker."""
    if not suggestion:
        return lambda acts: not any(code in FEEDBACK for code in acts)

    def allowed(acts: tuple[str, ...]) -> bool:
        if only_asks(acts):
            return may_ask
        answers = any(code in FEEDBACK or code in ASKS_FOR_MORE for code in acts) and "INQ" not in acts
        if target is None:
            return answers
        if target:  # accepting while asking ("do not say yet whether you want it") or asking for more contradicts itself
            return "ACC" in acts and not any(code in ("REJ", "INQ", *ASKS_FOR_MORE) for code in acts)
        return answers and "ACC" not in acts

    return allowed


def only_asks(acts: Sequence[str]) -> bool:
    """The seeker's acts ask about the suggestion without deciding (INQ, neither ACC nor REJ)."""
    return "INQ" in acts and "ACC" not in acts and "REJ" not in acts


def asks_first(plan: TurnPlan) -> bool:
    """The seeker's planned move asks about the suggestion before deciding on it."""
    return only_asks(plan.acts)


class DialoguePlan:
    """Draws each turn's move as the dialogue goes, from what came before; every draw uses its turn's seed,
    so a dialogue's plan is the same whenever it is played again."""

    def __init__(self, model: StrategyModel, seed: int):
        self.model = model
        self.requests_planned = model.requests_for(_rng(seed))
        self.requests_made = 0
        self.recommended = False
        self.previous: tuple[Role, tuple[str, ...]] | None = None
        self.position = 0

    def opened(self, script: Sequence[tuple[Role, str]]) -> None:
        """The scripted opening lines count as greetings (OTH)."""
        for role, _ in script:
            self._played(role, ("OTH",))

    def recommender(self, seed: int, *, answering: bool, can_recommend: bool, must_recommend: bool) -> TurnPlan:
        """The recommender's move at this turn."""
        left = None if self.recommended else max(self.requests_planned - self.requests_made, 0)
        allowed = recommender_allowed(
            answering=answering, can_recommend=can_recommend, must_recommend=must_recommend, requests_left=left
        )
        return self._draw("recommender", seed, allowed)

    def seeker(self, seed: int, *, suggestion: bool, target: bool | None, may_ask: bool) -> TurnPlan:
        """The seeker's move at this turn."""
        return self._draw("seeker", seed, seeker_allowed(suggestion=suggestion, target=target, may_ask=may_ask))

    def closing(self, seed: int) -> TurnPlan | None:
        """After the seeker accepted: the recommender's goodbye, when people would say one (a draw of small talk
        or a reaction only); None when the dialogue simply ends."""
        rng = _rng(seed)
        context = self._context("recommender")
        label = self.model.sample(context, rng)
        acts = acts_of(label)
        if not set(acts) <= CLOSING_ACTS:  # an answer, a question or a suggestion after the goodbye reads as noise
            return None
        plan = TurnPlan(acts=list(acts), words=self.model.words_for("recommender", label, rng))
        self._played("recommender", acts)
        return plan

    def _draw(self, role: Role, seed: int, allowed: Callable[[tuple[str, ...]], bool]) -> TurnPlan:
        rng = _rng(seed)
        context = self._context(role)
        drawn = self.model.sample(context, rng)
        label = drawn if allowed(acts_of(drawn)) else self.model.sample(context, rng, allowed)
        acts = acts_of(label)
        plan = TurnPlan(
            acts=list(acts), words=self.model.words_for(role, label, rng),
            sampled=None if label == drawn else list(acts_of(drawn)),
        )
        self._played(role, acts)
        return plan

    def _context(self, role: Role) -> Context:
        return Context.after(role, self.recommended, self.previous, self.position)

    def _played(self, role: Role, acts: tuple[str, ...]) -> None:
        if role == "recommender":
            self.requests_made += not self.recommended and requests(acts) and not recommends(acts)
            self.recommended = self.recommended or recommends(acts)
        self.previous = (role, acts)
        self.position += 1
