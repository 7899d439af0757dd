"""Preference filters: what the seeker says must not contradict its own reviews, and the recommender's
private notes about the seeker's taste must not contradict what the seeker said."""

from __future__ import annotations

from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue, Statement
from synth.filters.judge_protocol import Claim, ContradictionJudge, Kind


class _JudgedFilter:
    name = ""
    kind: Kind = "persona"

    def __init__(self, judge: ContradictionJudge):
        self.judge = judge

    def claims(self, dialogue: FilterDialogue) -> list[Claim]:
        raise NotImplementedError

    def applies(self, dialogue: FilterDialogue) -> bool:
        return bool(self.claims(dialogue))

    async def check(self, dialogue: FilterDialogue) -> Verdict:
        claims = self.claims(dialogue)
        if not claims:
            return KEEP
        found = await self.judge.contradiction(self.kind, claims)
        if found is None:
            return KEEP
        why = f": {found.explanation}" if found.explanation else ""
        return Verdict.drop(
            f'{self.describe(found.claim)} contradicts {found.premise.label} "{found.premise.text}"{why}',
            found.claim.text,
            found.claim.turn,
            None if found.score is None else round(found.score, 3),
        )

    def describe(self, claim: Claim) -> str:
        return f"turn {claim.turn}"


class PersonaContradiction(_JudgedFilter):
    """Drops a dialogue in which a seeker utterance contradicts the seeker's own reviews (its persona)."""

    name = "persona_contradiction"
    kind: Kind = "persona"

    def claims(self, dialogue: FilterDialogue) -> list[Claim]:
        if not dialogue.persona:
            return []
        premises = tuple(dialogue.persona)
        return [
            Claim(index, turn.text, premises)
            for index, turn in enumerate(dialogue.turns)
            if index >= dialogue.first_free_turn and turn.role == "seeker"
        ]

    def describe(self, claim: Claim) -> str:
        return f"seeker turn {claim.turn}"


class GuessContradiction(_JudgedFilter):
    """Drops a dialogue in which the recommender's stated belief about the seeker's taste contradicts what the
    seeker said before it: its think texts where it wrote them (--think), else its messages."""

    name = "guess_contradiction"
    kind: Kind = "guess"

    def claims(self, dialogue: FilterDialogue) -> list[Claim]:
        claims = []
        said: list[Statement] = []
        for index, turn in enumerate(dialogue.turns):
            if turn.role == "seeker" and index >= dialogue.first_free_turn:
                said.append(Statement(f"seeker turn {index}", turn.text))
            elif turn.role == "recommender" and said and (turn.think or turn.text):
                claims.append(Claim(index, turn.think or turn.text, tuple(said)))
        return claims

    def describe(self, claim: Claim) -> str:
        return f"the recommender's note or message at turn {claim.turn}"
