"""`synth evaluate`'s game logic with a scripted seeker (the real seeker plays in
tests/integration/test_evaluate.py): cases from a human dialogue, the sanity CRSs, the HTTP protocol and its
errors, the leak scrub, the metrics and resuming."""

import asyncio

import pytest

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.baselines.popularity import Popularity
from synth.benchmarks.crs.cases import recommendation_cases
from synth.benchmarks.crs.datasets import load_dataset, parse_specs
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.interactive.cases import CaseReport, human_cases, sample_cases
from synth.benchmarks.interactive.conversation import SCRUBBED, Conversation, scrub
from synth.benchmarks.interactive.crs import BaselineCrs, OracleCrs, RandomCrs, ShuffledTwin
from synth.benchmarks.interactive.metrics import hit_by, scores, separated, with_interval
from synth.benchmarks.interactive.remote import CrsError, HttpCrs, read_items
from synth.benchmarks.interactive.results import markdown
from synth.benchmarks.interactive.run import EvaluateOptions, done_conversations, play_crs, static_recall
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import shared_data_root
from synth.filters.titles import TitleSpotter
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.prompting import PromptSet
from synth.records import DialogueRecord
from synth.simulators import Sampling, Seeker
from tests.crs_server import crs_server, list_crs


@pytest.fixture()
def space(catalog):
    return ItemSpace(catalog)


def redial_like(catalog) -> Dialogue:
    """A ReDial-shaped dialogue on demo titles: the seeker names one movie, the recommender suggests two, the
    seeker liked the second (its questionnaire)."""
    ids = {item.display: f"@{n}" for n, item in enumerate(catalog.values())}
    titles = ("The Shining", "Die Hard", "The Lion King")
    alien, heat, frozen = (next(i for i in catalog.values() if i.title == t) for t in titles)
    turns = [
        DialogueTurn(role="seeker", text=f"Hi, I loved {ids[alien.display]}", items=[ids[alien.display].strip("@")]),
        DialogueTurn(role="recommender", text=f"Have you seen {ids[heat.display]}?",
                     items=[ids[heat.display].strip("@")]),
        DialogueTurn(role="seeker", text="No, what else?", items=[]),
        DialogueTurn(role="recommender", text=f"Try {ids[frozen.display]}", items=[ids[frozen.display].strip("@")]),
        DialogueTurn(role="seeker", text="Sounds good!", items=[]),
    ]
    items = {ids[i.display].strip("@"): i.display for i in (alien, heat, frozen)}
    form = {ids[heat.display].strip("@"): {"suggested": 1, "seen": 0, "liked": 2},
            ids[frozen.display].strip("@"): {"suggested": 1, "seen": 0, "liked": 1},
            ids[alien.display].strip("@"): {"suggested": 0, "seen": 1, "liked": 1}}
    return Dialogue(id="d1", source="redial", turns=turns, items=items, meta={"initiatorQuestions": form})


def seeker() -> Seeker:
    return Seeker(ScriptedBackend(rule_following_script), PromptSet.load(), Sampling(reply_resamples=2))


def test_a_liked_suggestion_becomes_a_case_with_the_dialogue_before_it(catalog, space):
    report = CaseReport()
    (case,) = human_cases([redial_like(catalog)], "redial", space, report)
    assert space.items[case.target].title == "The Lion King" and case.id == f"d1:{case.target}"
    assert [t.role for t in case.warm_start] == ["seeker", "recommender", "seeker"]  # up to the target's mention
    assert [space.items[r.item].title for r in case.persona.general] == ["The Shining"]  # what the seeker named
    assert {space.items[i].title for i in case.mentioned} == {"The Shining", "Die Hard"}
    assert report.as_dict()["targets"] == 1 and report.cases == 1
    (cold,) = human_cases([redial_like(catalog)], "redial", space, CaseReport(), warm_start=False)
    assert cold.warm_start == () and cold.persona.general == []


def test_the_oracle_succeeds_at_its_first_recommendation_and_random_fails(catalog, space, tmp_path):
    cases = human_cases([redial_like(catalog)], "redial", space, CaseReport())
    options = EvaluateOptions(crs=["oracle"], test="-", out=tmp_path, turns=3)
    oracle = asyncio.run(play_crs(OracleCrs({c.id: c.target for c in cases}, space), cases, seeker(), space, options))
    assert oracle[0].success_turn == 1 and oracle[0].ranks == [1]
    figures = scores(oracle, 3)
    assert figures["success"]["mean"] == figures["success_at_first_recommendation"] == 1.0
    assert figures["leaks_reaching_crs"] == 0
    record = (tmp_path / "oracle" / "dialogues.jsonl").read_text().splitlines()
    assert len(record) == 1 and '"ended_by":"accepted"' in record[0]  # the scripted seeker accepted its target
    never = RandomCrs(space, ids=[i for i in space.ids if i != cases[0].target])
    missed = asyncio.run(play_crs(never, cases, seeker(), space, options))
    assert missed[0].success_turn is None and len(missed[0].ranks) == 3
    assert RandomCrs(space).expected(3)["success"] == pytest.approx(1 - (1 - 1 / len(space)) ** 3, abs=1e-5)


def test_an_http_crs_is_asked_once_per_turn_and_its_titles_read(catalog, space, tmp_path):
    cases = human_cases([redial_like(catalog)], "redial", space, CaseReport())
    target = space.items[cases[0].target].display
    with crs_server(list_crs(["Se7en (1995)", "Die Hard (1988)", target])) as (url, received):
        crs = HttpCrs(url, space)
        try:
            (result,) = asyncio.run(play_crs(crs, cases, seeker(), space, EvaluateOptions([], "-", tmp_path, turns=3)))
        finally:
            asyncio.run(crs.aclose())
    # the warm start has a recommender turn already: the server recommends at once, Se7en first (Die Hard was
    # mentioned in the warm start), the target second
    assert space.items[result.recommended[0]].title == "Se7en" and result.ranks == [2, 1] and result.success_turn == 2
    assert len(received) == 2 and received[0]["protocol"] == "synth-crs/1"
    assert "Die Hard (1988)" in received[0]["mentioned"] and received[0]["conversation"][-1]["role"] == "seeker"
    assert received[1]["conversation"][-2]["text"] == "You could try Se7en (1995)."


@pytest.mark.parametrize(
    ("answer", "message"),
    [("not json", "no JSON object"), ({"items": []}, 'without "utterance"'), ({"utterance": "hi", "items": "Heat"},
     "not a list of strings")],
)
def test_an_http_crs_outside_the_protocol_is_one_clear_error(space, answer, message):
    with crs_server(lambda request: answer) as (url, _):
        crs = HttpCrs(url, space)
        with pytest.raises(CrsError, match=message):
            asyncio.run(crs.respond("c", [], []))


def test_an_unreachable_crs_is_one_clear_error(space):
    crs = HttpCrs("http://127.0.0.1:9/crs", space)
    with pytest.raises(CrsError, match="cannot be reached"):
        asyncio.run(crs.respond("c", [], []))


def test_a_message_naming_the_target_is_scrubbed_of_it():
    spotters = [TitleSpotter("The Lion King (1994)"), TitleSpotter("Heat (1995)")]
    assert scrub("I want something like the lion king. Songs and a sunrise!", spotters) == "Songs and a sunrise!"
    assert scrub("The Lion King, please. Or Heat.", spotters) == SCRUBBED
    assert read_items('Try "Heat" (1995) or Se7en (1995), not Unknown Film (2031).', ItemSpace({})) == ()


def test_metrics_count_hits_by_turn_and_intervals_separate_what_differs():
    found = Conversation("a", "x", ranks=[40, 3], recommended=[None, "t"], success_turn=2)
    lost = Conversation("b", "x", ranks=[None, None], recommended=["u", "v"])
    assert hit_by(found, 10, 1) is False and hit_by(found, 50, 1) and hit_by(found, 1, 2)
    figures = scores([found, lost], 2)
    assert figures["success_by_turn"] == [0.0, 0.5] and figures["recall_by_turn"]["recall@50"] == [0.5, 0.5]
    assert figures["success_at_first_recommendation"] == 0.5 and figures["success_later"] == 0.0
    assert with_interval([1.0] * 30, 0) == {"mean": 1.0, "ci95": [1.0, 1.0]}
    good, bad = scores([found] * 30, 2), scores([lost] * 30, 2)
    assert separated(good, bad) and not separated(good, good)


def test_a_second_run_reads_back_what_the_first_wrote(catalog, space, tmp_path):
    cases = sample_cases(human_cases([redial_like(catalog)], "redial", space, CaseReport()), 5, 0)
    options = EvaluateOptions(["oracle"], "-", tmp_path, turns=2)
    oracle = OracleCrs({c.id: c.target for c in cases}, space)
    first = asyncio.run(play_crs(oracle, cases, seeker(), space, options))
    assert set(done_conversations(tmp_path / "oracle")) == {c.id for c in cases}
    again = asyncio.run(play_crs(oracle, cases, seeker(), space, options))
    assert [c.as_dict() for c in again] == [c.as_dict() for c in first]
    assert len((tmp_path / "oracle" / "dialogues.jsonl").read_text().splitlines()) == len(cases)


def test_a_case_plays_with_its_own_seed_whatever_else_is_sampled(catalog, space, tmp_path):
    dialogues = [redial_like(catalog), redial_like(catalog).model_copy(update={"id": "d2"})]
    both = human_cases(dialogues, "redial", space, CaseReport())
    oracle = OracleCrs({c.id: c.target for c in both}, space)

    def seeds(cases, folder):
        asyncio.run(play_crs(oracle, cases, seeker(), space, EvaluateOptions(["oracle"], "-", folder, turns=1)))
        lines = (folder / "oracle" / "dialogues.jsonl").read_text().splitlines()
        records = map(DialogueRecord.model_validate_json, lines)
        return {record.id.removeprefix("eval-oracle-"): record.generation.seed for record in records}

    alone, together = seeds(both[1:], tmp_path / "alone"), seeds(both, tmp_path / "together")
    assert len(together) == 2 and alone == {both[1].id: together[both[1].id]} != {both[1].id: together[both[0].id]}


def test_the_shell_names_the_movie_and_its_kind_in_plain_english():
    from synth.benchmarks.interactive.crs import recommend_sentence
    from synth.records import Item

    assert recommend_sentence(Item(id="1", title="Heat", year=1995, genres=["Action", "Crime"])) == (
        "How about Heat (1995)? It's an action and crime film you might enjoy.")
    assert "It's a thriller film" in recommend_sentence(Item(id="2", title="Ronin", year=1998, genres=["Thriller"]))
    assert recommend_sentence(Item(id="3", title="Heat", year=1995)).endswith("It's a film you might enjoy.")


def test_degraded_twins_keep_talking_but_lose_the_order(catalog, space):
    class Fixed:
        name = "fixed"

        def score_batch(self, cases):
            import numpy as np
            return np.arange(len(space), dtype=float)[None, :].repeat(len(cases), 0)

    crs = BaselineCrs(Fixed(), space)
    asked = asyncio.run(crs.respond("c", [], []))
    assert asked.recommended is None and asked.ranking[0] == space.ids[-1]
    from synth.benchmarks.interactive.crs import Message
    said = [Message("seeker", "hi"), Message("recommender", "what do you like?"), Message("seeker", "thrillers")]
    recommended = asyncio.run(crs.respond("c", said, [space.ids[-1]]))
    assert recommended.recommended == space.ids[-2] and space.items[space.ids[-2]].title in recommended.utterance
    shuffled = asyncio.run(ShuffledTwin(crs, space).respond("c", said, [space.ids[-1]]))
    assert sorted(shuffled.ranking) == sorted(recommended.ranking) and shuffled.ranking != recommended.ranking


def test_each_baseline_gets_a_popularity_twin_but_popularity_itself_only_its_shuffled_one(space):
    from synth.benchmarks.crs.baselines.cooccurrence import CoOccurrence
    from synth.benchmarks.interactive.run import twins, validation_pairs

    setup = Setup(space, progress=False)
    train = TrainingData("none", "0", [], [], [])
    popularity, other = BaselineCrs(Popularity(setup), space), BaselineCrs(CoOccurrence(setup), space)
    assert [t.name for t in twins(popularity, train, setup, space, 0)] == ["popularity (shuffled)"]
    assert [t.name for t in twins(other, train, setup, space, 0)] == [
        f"{other.name} (popularity twin)", f"{other.name} (shuffled)"]
    # played beside `popularity`, the popularity twin is that row (the same moves): it is not played again
    alongside = [popularity, other, *twins(popularity, train, setup, space, 0, True), *twins(other, train, setup, space, 0, True)]
    assert [t.name for t in alongside[2:]] == ["popularity (shuffled)", f"{other.name} (shuffled)"]
    assert validation_pairs(alongside, train) == {
        "popularity (shuffled)": ("popularity", "popularity (shuffled)"),
        f"{other.name} (shuffled)": (other.name, f"{other.name} (shuffled)"),
        f"{other.name} (popularity twin)": (other.name, "popularity"),
    }
    alone = [other, *twins(other, train, setup, space, 0)]
    assert validation_pairs(alone, train) == {t.name: (other.name, t.name) for t in alone[1:]}
    verdict = {"of": other.name, "played_as": "popularity", "separated_success": False, "separated_recall@10": True}
    results = {"settings": {"test": "t", "turns": 1, "seeker_model": "m"},
               "cases": {"played": 1, "targets": 1, "not_in_catalog": 0}, "systems": {},
               "validation": {f"{other.name} (popularity twin)": verdict}}
    assert f"| {other.name} (popularity twin) | {other.name} | popularity | no | yes |" in markdown(results)


def test_target_free_cases_hold_out_liked_movies_and_the_seeker_sees_only_their_genres(catalog, space, tmp_path):
    import pandas as pd

    from synth.benchmarks.interactive.cases import target_free_cases
    from synth.benchmarks.interactive.conversation import seeker_view

    ids = list(catalog)[:12]
    ratings = pd.DataFrame({"user": [7] * 12, "item": ids, "rating": [5.0] * 6 + [2.0] * 6, "timestamp": 0})
    (case,) = target_free_cases(ratings, space, CaseReport(), history=4, wants=3, seed=1)
    assert len(case.wants) == 3 and set(case.wants) <= set(ids[:6]) and case.goals == case.wants
    assert not {r.item for r in case.persona.general} & set(case.wants) and len(case.persona.general) == 4
    persona, view = seeker_view(case, space, "target-free")
    prompt = seeker().system_prompt(persona, view, several=True)
    assert not any(TitleSpotter(space.items[w].display).find(prompt) for w in case.wants)
    assert "a few would do" in prompt and "they are" in prompt and "one particular movie" not in prompt
    assert "its mood" not in prompt
    played = asyncio.run(play_crs(OracleCrs({case.id: case.target}, space), [case], seeker(), space,
                                  EvaluateOptions([], "-", tmp_path, turns=2, mode="target-free")))
    figures = scores(played, 2)
    assert played[0].success_turn == 1 and figures["preference_coverage@10"] == pytest.approx(1 / 3, abs=1e-4)
    assert figures["preference_coverage_recommended"] == pytest.approx(1 / 3, abs=1e-4)


def test_attributes_mode_shows_genres_and_era_but_no_words_of_the_review(catalog, space):
    from synth.benchmarks.interactive.conversation import seeker_view

    (case,) = human_cases([redial_like(catalog)], "redial", space, CaseReport())
    full = seeker().system_prompt(*seeker_view(case, space, "target"))
    bare = seeker().system_prompt(*seeker_view(case, space, "attributes"))
    assert "its mood" in full and "its mood" not in bare and "from the 1990s" in bare


def test_a_trained_baseline_gets_its_static_recall_beside_the_interactive_one(tmp_path):
    """Static Recall@k as `synth benchmark` scores it, on the test file's mentions (40 ReDial test dialogues,
    popularity fitted on them); the other CRSs have none, and target-free mode has no mentions to score."""
    test = tmp_path / "test.jsonl"
    with (shared_data_root() / "redial" / "test_data.jsonl").open() as handle:
        test.write_text("".join(next(handle) for _ in range(40)))
    space = ItemSpace.movielens()
    data = load_dataset(parse_specs([f"redial-40={test}"])[0], space)
    popularity = Popularity(Setup(space, progress=False))
    popularity.fit(TrainingData("redial-40", data.fingerprint, data.conversations,
                                recommendation_cases(data.conversations), []))
    systems = [BaselineCrs(popularity, space), OracleCrs({}, space)]
    options = EvaluateOptions(crs=["popularity", "oracle"], test=f"redial-40={test}", out=tmp_path)
    static = static_recall(systems, options, space)
    assert list(static) == ["popularity"] and 0.0 < static["popularity"]["recall@50"] <= 1.0
    free = EvaluateOptions(crs=["popularity"], test="movielens", out=tmp_path, mode="target-free")
    assert static_recall(systems, free, space) == {}
    played = scores([Conversation("c", "popularity", ranks=[1], recommended=["x"], success_turn=1)], 1)
    results = {"settings": {"test": "t", "turns": 1, "seeker_model": "m"},
               "cases": {"played": 1, "targets": 1, "not_in_catalog": 0},
               "systems": {"popularity": {**played, "static": static["popularity"]}}}
    assert f"| {static['popularity']['recall@10']:.3f} |" in markdown(results)
