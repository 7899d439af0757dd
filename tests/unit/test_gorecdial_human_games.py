"""GoRecDial games from human ReDial dialogues (issue #45): the seeker's set and the correct movie from the
questionnaire, the other candidates drawn far in MovieLens's co-rating embedding, the dialogue cut at the
seeker's answer; on a hand-made dialogue and on the shared ReDial test split."""

from collections import Counter

import numpy as np
import pytest

from synth.benchmarks.gorecdial.human_games import MIN_SEEKER, RedialGames, game_specs
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import shared_dataset
from synth.data.sources import load_movielens_only
from synth.datasets import load_dialogues
from synth.item_embeddings import corating_embeddings

TOY, JUMANJI, HEAT, ALIEN = "Toy Story (1995)", "Jumanji (1995)", "Heat (1995)", "Alien (1979)"


@pytest.fixture(scope="module")
def source():
    movielens = load_movielens_only(None)
    return RedialGames(movielens.catalog, corating_embeddings(movielens.ratings, seed=0), seed=1)


def redial(form: dict[str, tuple[int, int, int]], extra_turns: int = 0) -> Dialogue:
    """A ReDial-shaped dialogue on MovieLens titles: the seeker names Toy Story and Jumanji, the recommender
    suggests Alien, then Heat, and the seeker answers."""
    items = {"1": TOY, "2": JUMANJI, "3": ALIEN, "4": HEAT}
    turns = [
        DialogueTurn(role="seeker", text="Hi! I loved @1 and @2", items=["1", "2"]),
        DialogueTurn(role="recommender", text="Have you seen @3 ?", items=["3"]),
        DialogueTurn(role="seeker", text="Too scary for me", items=[]),
        DialogueTurn(role="recommender", text="Then try @4", items=["4"]),
        *[DialogueTurn(role="recommender", text="It's great", items=[]) for _ in range(extra_turns)],
        DialogueTurn(role="seeker", text="Sounds good, thanks!", items=[]),
        DialogueTurn(role="recommender", text="Bye", items=[]),
    ]
    questions = {movie: {"suggested": s, "seen": seen, "liked": liked} for movie, (s, seen, liked) in form.items()}
    return Dialogue(id="d7", source="redial", turns=turns, items=items, meta={"initiatorQuestions": questions})


LIKED_TASTE = {"1": (0, 1, 1), "2": (0, 1, 1), "3": (1, 0, 0), "4": (1, 0, 1)}


def test_a_liked_unseen_suggestion_is_the_correct_movie_among_far_ones(source):
    game, reason = source.game(redial(LIKED_TASTE, extra_turns=1))
    assert reason == "" and game is not None and game.id == "redial-d7"
    assert [i.display for i in game.seeker_items] == [TOY, JUMANJI]
    assert game.candidates[game.correct].display == HEAT and len(game.candidates) == 5
    assert game.points[game.correct] == 1.0 and sum(game.points) == 1.0
    others = [c.id for i, c in enumerate(game.candidates) if i != game.correct]
    embeddings = source.embeddings
    sims = embeddings.similarity_to(embeddings.mean_vector([i.id for i in game.seeker_items]))
    median = np.quantile(sims, 0.5)
    assert all(sims[embeddings.rows([o])[0]] < median for o in others)  # drawn from the far half
    assert not {c.display for c in game.candidates} & {TOY, JUMANJI, ALIEN}  # nothing the dialogue mentions
    roles = [(u.role, u.decision, u.recommended, u.accepted) for u in game.utterances]
    assert roles == [("seeker", None, None, None), ("recommender", "speak", None, None), ("seeker", None, None, None),
                     ("recommender", "recommend", game.correct, None), ("recommender", "speak", None, None),
                     ("seeker", None, None, True)]  # cut at the seeker's answer; "Bye" is not played
    assert game.utterances[0].text == f"Hi! I loved {TOY} and {JUMANJI}"
    again, _ = source.game(redial(LIKED_TASTE, extra_turns=1))
    assert again == game  # seeded by the dialogue


@pytest.mark.parametrize(
    ("form", "reason"),
    [
        ({**LIKED_TASTE, "4": (1, 1, 1)}, "no accepted suggestion"),  # seen before: not a recommendation
        ({**LIKED_TASTE, "2": (0, 1, 0)}, f"fewer than {MIN_SEEKER} liked, seen movies"),
        ({}, "no accepted suggestion"),
    ],
)
def test_dialogues_that_are_no_game_are_counted_by_reason(source, form, reason):
    skipped = Counter()
    assert source.games([redial(form)], skipped) == []
    (counted,) = skipped
    assert counted.startswith(reason)


def test_redial_games_name_both_shared_splits():
    train, test = shared_dataset("redial-train"), shared_dataset("redial-test")
    assert game_specs(["redial-games", "runs/x"]) == [f"redial-games={train}", f"redial-games={test}", "runs/x"]
    assert game_specs(["both=redial-games", "both=runs/x"]) == [f"both={train}", f"both={test}", "both=runs/x"]


def test_the_shared_redial_test_split_gives_games(source):
    dialogues = load_dialogues(shared_dataset("redial-test"), "redial")[:300]
    skipped = Counter()
    games = source.games(dialogues, skipped)
    assert len(games) + sum(skipped.values()) == 300 and len(games) >= 30
    for game in games:
        assert len({c.id for c in game.candidates}) == 5 and len(game.seeker_items) >= MIN_SEEKER
        assert game.utterances[-1].role == "seeker" and game.utterances[-1].accepted
        assert any(u.recommended == game.correct for u in game.utterances)


def test_intervals_are_seeded_and_tell_apart_what_differs():
    from synth.analysis.intervals import apart, mean_interval

    low = mean_interval([0.0] * 80 + [1.0] * 20, seed=3)
    high = mean_interval([0.0] * 20 + [1.0] * 80, seed=3)
    assert low == mean_interval([0.0] * 80 + [1.0] * 20, seed=3) and low[0] < 0.2 < low[1]
    assert apart(low, high) and not apart(low, mean_interval([0.0] * 75 + [1.0] * 25, seed=3))
    assert mean_interval([]) is None and mean_interval([0.5, 0.5]) == [0.5, 0.5]


def test_a_clustered_interval_resamples_whole_games_and_is_wider_where_their_turns_move_together():
    """Against the candidate prior, an expert's Turn@1 differences come in games whose turns share candidates:
    resampling games, not turns, gives the honest interval, wider when a game's turns agree."""
    from synth.analysis.intervals import clustered_mean_interval, mean_interval

    games = [[1.0] * 4 if n % 5 == 0 else [0.0] * 4 for n in range(60)]  # 12 games of 60 gain, on every turn
    flat = mean_interval([v for game in games for v in game], seed=1)
    clustered = clustered_mean_interval(games, seed=1)
    assert clustered == clustered_mean_interval(games, seed=1) and clustered[0] < 0.2 < clustered[1]
    assert clustered[1] - clustered[0] > 1.5 * (flat[1] - flat[0])
    assert clustered_mean_interval([]) is None and clustered_mean_interval([[0.0], [0.0, 0.0]]) == [0.0, 0.0]
