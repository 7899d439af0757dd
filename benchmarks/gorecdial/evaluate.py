"""Supervised evaluation on held-out games, the paper's table: at every expert turn, Turn@k (the correct
candidate among PREDICT's top k of the five, from the dialogue so far), decision accuracy (DECIDE against the
expert's speak/recommend in the data) and, on speak turns, F1 and BLEU-4 of GENERATE's greedy utterance
against the data's; per game, Chat@k (the top k after the whole dialogue).

`Tally` keeps the raw per-turn outcomes so that cross-validation folds pool before any mean is taken."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from synth.analysis.intervals import mean_interval
from synth.analysis.metrics.generation import bleu, mean_token_f1
from synth.benchmarks.crs.torch_support import require_torch
from synth.benchmarks.gorecdial.expert import strip_eos
from synth.benchmarks.gorecdial.games import DECISIONS, Game
from synth.benchmarks.gorecdial.training import Expert, turn_examples

KS = (1, 3)
MAX_TURN_INDEX = 10  # expert turns per game under the 20-utterance cap


@dataclass
class Tally:
    """Raw outcomes: per expert turn (its index in the game, the correct candidate's rank, decision hit),
    per game the rank after the whole dialogue, per speak turn the written and the reference utterance."""

    turn_ranks: list[tuple[int, int]] = field(default_factory=list)  # (expert turn index, rank from 1)
    chat_ranks: list[int] = field(default_factory=list)
    decisions: list[bool] = field(default_factory=list)
    hypotheses: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)

    def extend(self, other: Tally) -> None:
        for name in ("turn_ranks", "chat_ranks", "decisions", "hypotheses", "references"):
            getattr(self, name).extend(getattr(other, name))

    def metrics(self) -> dict[str, Any]:
        """Means over the pooled outcomes; a metric this model does not have is None."""
        result: dict[str, Any] = {
            "f1": mean_token_f1(self.hypotheses, self.references) if self.hypotheses else None,
            "bleu4": bleu(self.hypotheses, self.references, 4) if self.hypotheses else None,
        }
        for k in KS:
            result[f"turn@{k}"] = _share(r <= k for _, r in self.turn_ranks) if self.turn_ranks else None
            result[f"turn@{k}_ci"] = mean_interval(r <= k for _, r in self.turn_ranks)
            result[f"chat@{k}"] = _share(r <= k for r in self.chat_ranks) if self.chat_ranks else None
        result["decision_acc"] = _share(self.decisions) if self.decisions else None
        result["expert_turns"] = len(self.turn_ranks) or len(self.decisions)
        result["speak_turns"] = len(self.references)
        return result

    def turn_curve(self) -> list[float | None]:
        """Turn@1 at each expert turn index (1-based) of a game, for the plot."""
        by_index: dict[int, list[bool]] = defaultdict(list)
        for index, rank in self.turn_ranks:
            by_index[min(index, MAX_TURN_INDEX)].append(rank <= 1)
        return [_share(by_index[i]) if by_index[i] else None for i in range(1, MAX_TURN_INDEX + 1)]


def _share(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values)


def ranks(scores: Any, correct: Any) -> list[int]:
    """The correct candidate's rank (1 = first) per row; ties count against it."""
    chosen = scores.gather(1, correct[:, None])
    return ((scores >= chosen).sum(1)).tolist()


def evaluate_expert(expert: Expert, games: Sequence[Game]) -> Tally:
    """The expert's outcomes on held-out games (the aspects it did not learn stay empty)."""
    torch = require_torch()
    encoder, model = expert.encoder, expert.model
    examples = turn_examples(games, encoder)
    indexes = [n + 1 for game in games for n, _ in enumerate(game.expert_turns())]
    tally = Tally()
    with torch.no_grad():
        context, memory, padding = model.context(examples.history)
        scores = model.predict(context, examples.movies, examples.prior, examples.cosine)
        if expert.predicts:
            tally.turn_ranks = list(zip(indexes, ranks(scores, examples.correct)))
            final = encoder.tensor([encoder.history(game.utterances) for game in games])
            movies = encoder.tensor([encoder.movies(game.candidates) for game in games])
            prior = encoder.floats([encoder.prior(game) for game in games])
            cosine = encoder.floats([encoder.cosine(game, [game.utterances])[0] for game in games])
            chat_scores = model.predict(model.context(final)[0], movies, prior, cosine)
            tally.chat_ranks = ranks(chat_scores, torch.tensor([game.correct for game in games]))
        if expert.decides:
            tally.decisions = (model.decide(context, scores).argmax(-1) == examples.decision).tolist()
        rows = examples.speak
        if rows.any():
            tokens, _ = model.write(context[rows], memory[rows], padding[rows], encoder.config.utterance_words + 1,
                                    sample=False)
            tally.hypotheses = [encoder.vocabulary.text(strip_eos(row)) for row in tokens.tolist()]
            tally.references = [game.utterances[t].text for game, t in speak_turns(games)]
    return tally


def speak_turns(games: Sequence[Game]) -> list[tuple[Game, int]]:
    """(game, its position) of every speak turn, in `turn_examples` order."""
    return [(game, t) for game in games for t in game.expert_turns() if game.utterances[t].decision == DECISIONS[0]]
