"""Seekers a trained expert plays against.

- `RetrievalSeeker` (the paper's bot-play partner): it answers with the training seeker utterance whose
  situation is nearest to its own, by TF-IDF cosine over "the seeker's five movies + the expert's last
  utterance"; after a recommendation it accepts exactly when the movie is the correct candidate, answering
  from the training utterances that accepted (or turned down) a recommendation.
- `LlmSeeker`: synth's GoRecDial seeker simulator on the configured LLM backend, as in generation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

from synth.benchmarks.crs.torch_support import BENCH_HINT
from synth.benchmarks.gorecdial.games import Game, Utterance, movie_text
from synth.errors import SynthError
from synth.gorecdial import GoRecDialSeeker
from synth.llm.base import ChatBackend
from synth.prompting import PromptSet
from synth.records import Turn
from synth.simulators import Sampling, Usage
from synth.tokens import words
from synth.turns import transcript

Kind = Literal["answer", "accept", "reject"]
FALLBACK: dict[Kind, str] = {
    "answer": "I like movies like the ones I love.",
    "accept": "Yes, that sounds great, I will watch it!",
    "reject": "No, that is not really my taste.",
}


class Seeker(Protocol):
    name: str
    can_fail: bool  # a model answers for it: a game it ends in an error is that model's, not synth's fault

    async def reply(self, game: Game, utterances: Sequence[Utterance], recommended: int | None) -> tuple[str, bool]:
        """The seeker's next utterance and whether it accepts the recommended candidate."""


def taste(game: Game) -> str:
    return " ".join(movie_text(item) for item in game.seeker_items)


class RetrievalSeeker:
    name = "retrieval seeker"
    can_fail = False

    def __init__(self, games: Sequence[Game]):
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
        except ImportError:
            raise SynthError(BENCH_HINT) from None
        keys: dict[Kind, list[str]] = {"answer": [], "accept": [], "reject": []}
        self.replies: dict[Kind, list[str]] = {"answer": [], "accept": [], "reject": []}
        for game in games:
            for position, utterance in enumerate(game.utterances[1:], start=1):
                before = game.utterances[position - 1]
                if utterance.role != "seeker" or before.decision is None:
                    continue
                kind = _kind(game, before, utterance)
                keys[kind].append(taste(game) + " " + before.text)
                self.replies[kind].append(utterance.text)
        self.vectorizer = TfidfVectorizer(tokenizer=words, lowercase=False, token_pattern=None, sublinear_tf=True)
        self.vectorizer.fit([k for kind in keys.values() for k in kind] or ["empty"])
        self.matrices = {kind: self.vectorizer.transform(k) if k else None for kind, k in keys.items()}

    async def reply(self, game: Game, utterances: Sequence[Utterance], recommended: int | None) -> tuple[str, bool]:
        accept = recommended is not None and recommended == game.correct
        kind: Kind = "answer" if recommended is None else "accept" if accept else "reject"
        matrix = self.matrices[kind]
        if matrix is None:
            return FALLBACK[kind], accept
        query = self.vectorizer.transform([taste(game) + " " + utterances[-1].text])
        best = int((query @ matrix.T).toarray().argmax())
        return self.replies[kind][best], accept


def _kind(game: Game, expert: Utterance, seeker: Utterance) -> Kind:
    if expert.decision != "recommend":
        return "answer"
    accepted = seeker.accepted if seeker.accepted is not None else expert.recommended == game.correct
    return "accept" if accepted else "reject"


class LlmSeeker:
    name = "LLM seeker"
    can_fail = True

    def __init__(self, backend: ChatBackend, seed: int = 0, sampling: Sampling | None = None):
        self.simulator = GoRecDialSeeker(backend, PromptSet.load(mode="gorecdial"), sampling or Sampling())
        self.seed = seed
        self.usage = Usage()

    async def reply(self, game: Game, utterances: Sequence[Utterance], recommended: int | None) -> tuple[str, bool]:
        system = self.simulator.system_prompt(list(game.seeker_items))
        lines = transcript([Turn(role=u.role, text=u.text) for u in utterances], "seeker")
        item = game.candidates[recommended] if recommended is not None else None
        seed = self.seed + 100 * len(utterances)
        answer = await self.simulator.reply(system, lines, recommended=item, correct=recommended == game.correct,
                                            seed=seed, usage=self.usage)
        return answer.utterance, bool(answer.accept) and item is not None

    def usage_summary(self) -> dict[str, Any]:
        usage = self.usage
        return {"calls": usage.calls, "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                "format_retries": usage.format_retries}
