"""GoRecDial games from human ReDial dialogues (`redial-games`), drawn as the paper draws its sets.

A ReDial dialogue is a game when its seeker's questionnaire (the recommender's, where the seeker answered none)
names at least MIN_SEEKER movies the seeker brought up, has seen and liked (its set), and a movie the recommender
suggested that the seeker liked and had not seen (the correct movie: the first of them the recommender names).
Each is matched to MovieLens by title and year. The four other candidates are drawn, seeded by the dialogue,
from the far half of MovieLens in the co-rating embedding (below the median cosine to the seeker's set, none
the dialogue mentions), as `synth generate --mode gorecdial` draws them. The game is the dialogue up to the
seeker's answer to the correct movie's first recommendation: the recommender's turns are the expert's speech,
the one naming the correct movie its recommend decision, the others speak decisions (the human recommender's
other suggestions are not among the candidates). Dialogues that are no game are counted by reason."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from synth.analysis.stats.corpus import utterance_text
from synth.benchmarks.gorecdial.games import CANDIDATES, Decision, Game, Utterance
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import named_dataset
from synth.data.title_match import TitleMatcher
from synth.item_embeddings import ItemEmbeddings
from synth.records import Item

MIN_SEEKER = 2  # movies in the seeker's set (the paper's sets hold more; ReDial seekers seldom name 5)
FAR_QUANTILE = 0.5  # the other candidates come from below this quantile of cosine to the seeker's set
HUMAN_GAMES = {"redial-games": ("redial-train", "redial-test")}  # a name the suite takes -> the shared sets


def game_specs(specs: Sequence[str]) -> list[str]:
    """The suite's dataset specs, each name of HUMAN_GAMES ("redial-games", or "LABEL=redial-games" to pool
    them with other games under LABEL) written as its shared files under that label."""
    written = []
    for spec in specs:
        label, _, name = spec.rpartition("=")
        shared = [named_dataset(part) for part in HUMAN_GAMES.get(name, ())]
        written += [f"{label or name}={path}" for path in shared if path is not None] or [spec]
    return written


def questionnaire(dialogue: Dialogue) -> dict[str, dict[str, int]]:
    """The seeker's answers per ReDial movie id (suggested, seen, liked), or the recommender's about it."""
    return dialogue.meta.get("initiatorQuestions") or dialogue.meta.get("respondentQuestions") or {}


def through_answer(dialogue: Dialogue, turn: DialogueTurn) -> list[DialogueTurn]:
    """The dialogue's turns up to `turn` and the seeker's first message after it (its answer), where there is one."""
    position = dialogue.turns.index(turn)
    answer = next((i for i in range(position + 1, len(dialogue.turns)) if dialogue.turns[i].role == "seeker"), position)
    return dialogue.turns[: answer + 1]


class RedialGames:
    """Turns ReDial dialogues into games over the MovieLens `catalog` and its co-rating `embeddings`."""

    def __init__(self, catalog: dict[str, Item], embeddings: ItemEmbeddings, seed: int = 0):
        self.catalog, self.embeddings, self.seed = catalog, embeddings, seed
        self.matcher = TitleMatcher(catalog)

    def games(self, dialogues: Iterable[Dialogue], skipped: Counter) -> list[Game]:
        """Every dialogue that is a game; the others counted in `skipped` by reason."""
        found = []
        for dialogue in dialogues:
            game, reason = self.game(dialogue)
            if game is None:
                skipped[reason] += 1
            else:
                found.append(game)
        return found

    def movie(self, dialogue: Dialogue, movie: str) -> str | None:
        """The MovieLens id of one of the dialogue's ReDial movies (None: not in MovieLens)."""
        name = dialogue.items.get(movie)
        return None if name is None else self.matcher.match(name)

    def game(self, dialogue: Dialogue) -> tuple[Game | None, str]:
        """The dialogue's game, or None and why it is none."""
        form = questionnaire(dialogue)
        liked_seen = [m for m, a in form.items() if (a.get("suggested"), a.get("seen"), a.get("liked")) == (0, 1, 1)]
        accepted = {m for m, a in form.items() if (a.get("suggested"), a.get("seen"), a.get("liked")) == (1, 0, 1)}
        spoken = [(turn, m) for turn in dialogue.turns if turn.role == "recommender" for m in turn.items if m in accepted]
        if not spoken:
            return None, "no accepted suggestion"
        seeker = list(dict.fromkeys(i for i in (self.movie(dialogue, m) for m in liked_seen) if i in self.embeddings))
        if len(seeker) < MIN_SEEKER:
            return None, f"fewer than {MIN_SEEKER} liked, seen movies of the seeker in MovieLens"
        first_turn, redial_id = spoken[0]
        correct = self.movie(dialogue, redial_id)
        if correct is None or correct in seeker:
            return None, "accepted movie not in MovieLens"
        mentioned = {self.movie(dialogue, m) for turn in dialogue.turns for m in turn.items}
        rng = random.Random(f"{self.seed}-{dialogue.id}")
        candidates = [correct, *self.far_movies(seeker, mentioned | {correct}, rng)]
        rng.shuffle(candidates)
        index = candidates.index(correct)
        utterances: list[Utterance] = []
        turns = through_answer(dialogue, first_turn)
        for position, turn in enumerate(turns):
            text = utterance_text(dialogue, turn)
            if turn.role == "seeker":  # its last message is its answer to the correct movie: it liked it
                answer = position == len(turns) - 1 and position > turns.index(first_turn)
                utterances.append(Utterance("seeker", text, accepted=True if answer else None))
                continue
            names_correct = any(self.movie(dialogue, m) == correct for m in turn.items)
            decision: Decision = "recommend" if names_correct else "speak"
            utterances.append(Utterance("recommender", text, decision, index if names_correct else None))
        points = tuple(1.0 if i == index else 0.0 for i in range(CANDIDATES))
        return Game(f"redial-{dialogue.id}", tuple(self.catalog[i] for i in seeker),
                    tuple(self.catalog[i] for i in candidates), index, points, tuple(utterances)), ""

    def far_movies(self, seeker: list[str], leave_out: set[str | None], rng: random.Random) -> list[str]:
        """CANDIDATES - 1 movies from below FAR_QUANTILE of cosine to the seeker's set."""
        sims = self.embeddings.similarity_to(self.embeddings.mean_vector(seeker))
        cutoff = np.quantile(sims, FAR_QUANTILE)
        pool = [item for item, sim in zip(self.embeddings.ids, sims)
                if sim < cutoff and item not in leave_out and item in self.catalog]
        return rng.sample(pool, CANDIDATES - 1)
