"""The candidate prior: a logistic regression (scikit-learn) on the TF-IDF of each candidate's text alone, fitted
to pick the correct one of a game's five. It never reads the dialogue, so it shows how much the sets alone give
away; it is a baseline of the table and, cross-fitted, an input of the expert's PREDICT (`GamePriors`)."""

from __future__ import annotations

from collections.abc import Sequence

from synth.benchmarks.crs.torch_support import BENCH_HINT
from synth.benchmarks.gorecdial.games import Game, folds, game_key, movie_text
from synth.errors import SynthError
from synth.records import Item
from synth.tokens import words

INNER_FOLDS = 5  # cross-fitting of the training games' own scores


class CandidatePrior:
    """The prior fitted on `games`: `scores(candidates)` are its decision values, higher for likelier."""

    def __init__(self, games: Sequence[Game], seed: int):
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
            from sklearn.linear_model import LogisticRegression
        except ImportError:
            raise SynthError(BENCH_HINT) from None
        self.vectorizer = TfidfVectorizer(tokenizer=words, lowercase=False, token_pattern=None, sublinear_tf=True)
        texts = [movie_text(c) for g in games for c in g.candidates]
        labels = [int(i == g.correct) for g in games for i in range(len(g.candidates))]
        self.model = LogisticRegression(max_iter=1000, random_state=seed).fit(self.vectorizer.fit_transform(texts), labels)

    def scores(self, candidates: Sequence[Item]) -> list[float]:
        return self.model.decision_function(self.vectorizer.transform([movie_text(c) for c in candidates])).tolist()


class GamePriors:
    """The prior's scores as the expert reads them: a training game's from a prior fitted on the other training
    games (cross-fitted in `INNER_FOLDS`, so the expert never learns to trust the prior's in-sample confidence),
    any other game's from the prior fitted on all of them."""

    def __init__(self, training: Sequence[Game], seed: int):
        self.prior = CandidatePrior(training, seed)
        self.held_out: dict[tuple, list[float]] = {}
        if len(training) >= 2:
            for rest, held in folds(training, min(INNER_FOLDS, len(training)), seed):
                inner = CandidatePrior(rest, seed)
                self.held_out.update({game_key(g): inner.scores(g.candidates) for g in held})

    def __call__(self, game: Game) -> list[float]:
        found = self.held_out.get(game_key(game))
        return found if found is not None else self.prior.scores(game.candidates)
