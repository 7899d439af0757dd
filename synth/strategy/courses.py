"""How each `--strategy` moves a PEARL dialogue or a GoRecDial game, one object per strategy: the move each side
plays on a turn (a TurnPlan, or None where nothing is planned), whether the recommender offers candidates,
whether it may pass on them, and its goodbye after the acceptance.

- `FixedCourse` (pearl, and human without a strategy table): the recommender asks for `ask_turns` turns, then
  offers candidates at every turn; nothing is planned.
- `FreeCourse` (free): the recommender is offered candidates at every turn and may pass on them.
- `PlannedCourse` (human): every move is drawn from the strategy table (synth.strategy.plans.DialoguePlan), the
  goodbye too."""

from __future__ import annotations

from collections.abc import Sequence

from synth.analysis.acts.taxonomy import Role
from synth.config import Strategy
from synth.records import TurnPlan
from synth.strategy.model import StrategyModel, recommends
from synth.strategy.plans import DialoguePlan


class FixedCourse:
    """PEARL's fixed course: ask `ask_turns` times, then offer candidates at every turn."""

    planned = False  # the prompts say no move: the model writes its turn as it sees fit
    may_pass = False  # a recommender offered candidates must recommend one

    def __init__(self, ask_turns: int):
        self.ask_turns = ask_turns
        self.recommender_turns = 0

    def opened(self, script: Sequence[tuple[Role, str]]) -> None:
        """The scripted opening was played."""

    def seeker(self, seed: int, *, suggestion: bool, target: bool, may_ask: bool) -> TurnPlan | None:
        """The seeker's move (None: unplanned)."""
        return None

    def recommender(self, seed: int, *, answering: bool, can_recommend: bool, must_recommend: bool
                    ) -> tuple[TurnPlan | None, bool]:
        """The recommender's move (None: unplanned) and whether it is offered candidates this turn."""
        offer = can_recommend and self.recommender_turns >= self.ask_turns
        self.recommender_turns += 1
        return None, offer

    def closing(self, seed: int) -> TurnPlan | None:
        """The recommender's goodbye after the acceptance (None: the dialogue ends on the seeker)."""
        return None


class FreeCourse(FixedCourse):
    """The recommender decides: candidates at every turn, and it may pass on them."""

    may_pass = True

    def __init__(self) -> None:
        super().__init__(ask_turns=0)


class PlannedCourse(FixedCourse):
    """Every move drawn from people's dialogues (the strategy table), seeded per turn."""

    planned = True

    def __init__(self, model: StrategyModel, seed: int):
        super().__init__(ask_turns=0)
        self.plan = DialoguePlan(model, seed)

    def opened(self, script: Sequence[tuple[Role, str]]) -> None:
        self.plan.opened(script)

    def seeker(self, seed: int, *, suggestion: bool, target: bool, may_ask: bool) -> TurnPlan | None:
        return self.plan.seeker(seed, suggestion=suggestion, target=target, may_ask=may_ask)

    def recommender(self, seed: int, *, answering: bool, can_recommend: bool, must_recommend: bool
                    ) -> tuple[TurnPlan | None, bool]:
        plan = self.plan.recommender(seed, answering=answering, can_recommend=can_recommend,
                                     must_recommend=must_recommend)
        return plan, recommends(plan.acts)

    def closing(self, seed: int) -> TurnPlan | None:
        return self.plan.closing(seed)


def course_for(strategy: Strategy, ask_turns: int, model: StrategyModel | None, seed: int) -> FixedCourse:
    """The course of one dialogue (seeded by its seed) under `strategy`; human without a table plays pearl's."""
    if strategy == "free":
        return FreeCourse()
    if strategy == "human" and model is not None:
        return PlannedCourse(model, seed)
    return FixedCourse(ask_turns)
