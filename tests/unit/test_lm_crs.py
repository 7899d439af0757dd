"""`lm-crs` on the real packaged SmolLM2-135M-Instruct (converted from its GGUF once, then cached): a few LoRA
steps lower the loss and teach a planted recommendation that the untrained model does not make; the fitted
adapter is cached under a key of the settings that change the fit; both tasks' rows come out of the benchmark;
bad models and training sets end in one line."""

import copy
import inspect
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.baselines.lm_crs import LmCrs, LmCrsZeroShot, recommender_turns
from synth.benchmarks.crs.cache import fit_or_load, model_key
from synth.benchmarks.crs.cases import RecommendationCase, ResponseCase, recommendation_cases, response_cases
from synth.benchmarks.crs.datasets import Conversation, Utterance, load_dataset, parse_specs
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.crs.lm.inference import TitleTrie, best_titles, read_prompt, title_log_likelihoods
from synth.benchmarks.crs.lm.prompts import with_years
from synth.benchmarks.crs.lm.settings import LmSettings
from synth.benchmarks.crs.registry import resolve_models, tasks_of
from synth.benchmarks.crs.results import markdown
from synth.benchmarks.crs.run import BenchmarkOptions, run_benchmark
from synth.cli import app
from synth.config import BackendConfig
from synth.errors import SynthError
from synth.records import Item

MOVIES = [("Heat", 1995), ("Titanic", 1997), ("The Godfather", 1972), ("Alien", 1979), ("Up", 2009), ("Fargo", 1996),
          ("Quiet Lighthouse", 1987)]
CATALOG = {str(i): Item(id=str(i), title=title, year=year) for i, (title, year) in enumerate(MOVIES)}
PLANTED = "6"  # an obscure title every training dialogue recommends
# CPU-sized for a test: examples of about 60 tokens (the chat frame 43 of them), 10 steps of 2 (about 20 s on one
# busy core)
SETTINGS = LmSettings(steps=10, batch_size=2, max_length=80, learning_rate=2e-3)
OPENERS = ["I liked @{}.", "Loved @{}!"]


def redial_line(number: int, seeker: str, liked: int) -> str:
    messages = [{"messageId": 1, "text": seeker.format(liked), "senderWorkerId": 1},
                {"messageId": 2, "text": f"Watch @{PLANTED}", "senderWorkerId": 2}]
    mentions = {str(liked): CATALOG[str(liked)].display, PLANTED: CATALOG[PLANTED].display}
    return json.dumps({"conversationId": str(number), "initiatorWorkerId": 1, "respondentWorkerId": 2,
                       "messages": messages, "movieMentions": mentions, "initiatorQuestions": {},
                       "respondentQuestions": {}})


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    """ReDial files: 10 training dialogues on five movies, each answered with the planted one; 2 held out."""
    folder = tmp_path_factory.mktemp("lm-crs")
    train, test = folder / "train.jsonl", folder / "test.jsonl"
    train.write_text("\n".join(redial_line(n, OPENERS[n % 2], n // 2) for n in range(10)) + "\n")
    test.write_text(redial_line(20, "@{} was great.", 5) + "\n" + redial_line(21, "I enjoy @{}.", 2) + "\n")
    return train, test


@pytest.fixture(scope="module")
def setup(tmp_path_factory) -> Setup:
    return Setup(ItemSpace(CATALOG), seed=0, progress=False, cache_dir=tmp_path_factory.mktemp("cache"), lm=SETTINGS)


@pytest.fixture(scope="module")
def planted(files, setup) -> TrainingData:
    dataset = load_dataset(parse_specs([f"planted={files[0]}"])[0], setup.space)
    return TrainingData(dataset.label, dataset.fingerprint, dataset.conversations,
                        recommendation_cases(dataset.conversations), response_cases(dataset.conversations))


@pytest.fixture(scope="module")
def trained(planted, setup) -> LmCrs:
    model = LmCrs(setup)
    assert fit_or_load(model, planted, setup) is False  # trained here, and its adapter cached
    return model


HELD_OUT = (Utterance("seeker", "Fargo (1996) was great.", ("5",)),)


def target_loss(model: LmCrs, data: TrainingData) -> float:
    """The mean loss on the targets of every training example, in one batch."""
    import torch
    from transformers import DataCollatorForSeq2Seq

    examples = [model.writer.example(context, turn) for context, turn in recommender_turns(data.conversations)]
    inputs = DataCollatorForSeq2Seq(model.lm.tokenizer, padding=True, return_tensors="pt")(examples)
    with torch.no_grad():
        return model.lm.model(**inputs).loss.item()


@pytest.mark.integration
def test_a_few_steps_lower_the_loss_and_plant_the_recommendation(trained, planted, setup):
    untrained = LmCrsZeroShot(setup)
    before, after = target_loss(untrained, planted), target_loss(trained, planted)
    assert after < 0.5 * before, (before, after)
    record = trained.training_record
    assert record["steps"] == 10 and record["final_loss"] < record["first_loss"]
    assert record["examples"] == 20  # ten recommender turns, and the item each names after "I recommend"
    memory = {"cpu": "process rss", "cuda": "cuda allocated"}[record["device"]]
    assert record["peak_memory_of"] == memory and record["peak_memory_mb"] > 100

    case = RecommendationCase("held", HELD_OUT, PLANTED, ("5",))
    row = setup.space.row(PLANTED)
    scores = trained.score_batch([case])[0]
    assert np.isfinite(scores).all()  # 7 items: all of them are candidates
    assert int(np.argmax(scores)) == row
    assert int(np.argmax(untrained.score_batch([case])[0])) != row  # what training taught
    [response] = trained.respond([ResponseCase("held", HELD_OUT, "")])
    assert "Quiet Lighthouse (1987)" in response


@pytest.mark.integration
def test_the_beam_search_over_every_title_scores_as_the_candidates_do_and_finds_the_planted_one(trained, setup):
    model, tokenizer, device = trained.lm.model, trained.lm.tokenizer, trained.lm.device
    start = read_prompt(model, trained.writer.recommendation_prompt(HELD_OUT), device)
    titles = trained.title_tokens()
    trie = TitleTrie(titles)
    every = title_log_likelihoods(model, tokenizer, start, titles, device)
    found = best_titles(model, start, trie, len(titles), device)  # a beam as wide as the catalog sees all of it
    assert sorted(found) == list(range(len(titles)))
    np.testing.assert_allclose([found[row] for row in range(len(titles))], every, rtol=1e-4, atol=1e-4)
    assert list(best_titles(model, start, trie, 1, device)) == [setup.space.row(PLANTED)]
    # the searches worked on copies: the prompt's cache still gives the same likelihoods
    np.testing.assert_allclose(title_log_likelihoods(model, tokenizer, start, titles, device), every, rtol=1e-5)


@pytest.mark.integration
def test_the_fitted_adapter_is_cached_under_the_settings_that_change_it(trained, planted, setup, monkeypatch):
    again = LmCrs(setup)
    assert fit_or_load(again, planted, setup) is True
    case = RecommendationCase("held", HELD_OUT, PLANTED, ("5",))
    np.testing.assert_allclose(again.score_batch([case]), trained.score_batch([case]), rtol=1e-5)
    assert again.training_record == trained.training_record

    def key(settings: LmSettings, of: Setup = setup) -> str:
        model = copy.copy(trained)
        model.settings = settings
        return model_key(model, planted, of)

    base = key(SETTINGS)
    for change in ({"steps": 11}, {"batch_size": 3}, {"max_length": 96}, {"lora_r": 4}, {"learning_rate": 1e-3},
                   {"full_finetune": True}, {"model": "HuggingFaceTB/SmolLM2-360M-Instruct"}):
        assert key(replace(SETTINGS, **change)) != base, change
    assert key(SETTINGS, replace(setup, seed=1)) != base
    # how the run is shown, where it caches and the LLM baselines' backend do not change the fit
    assert key(SETTINGS, replace(setup, progress=True, cache_dir=Path("/elsewhere"), llm=BackendConfig(model="x"))) == base
    full = replace(SETTINGS, full_finetune=True)
    assert key(replace(full, lora_r=32)) == key(full)  # no adapter in a full fine-tuning
    assert key(replace(SETTINGS, learning_rate=None)) == key(replace(SETTINGS, learning_rate=5e-4))  # the default
    # a test set's new items leave the fit alone; a new title for an item the dialogues mention does not
    unmentioned = Item(id="99", title="Brand New", year=2020)
    assert key(SETTINGS, replace(setup, space=ItemSpace({**CATALOG, "99": unmentioned}))) == base
    renamed = {**CATALOG, PLANTED: Item(id=PLANTED, title="Quiet Lighthouses", year=1987)}
    assert key(SETTINGS, replace(setup, space=ItemSpace(renamed))) != base
    # the code that makes the weights is in the key; the code that scores them is not
    code = trained.fit_code()
    assert inspect.getsource(LmCrs.fit) in code and inspect.getsource(LmCrs.score_batch) not in code
    monkeypatch.setattr(LmCrs, "fit_code", lambda self: [*code, "# one more line in fit"])
    assert key(SETTINGS) != base


@pytest.mark.integration
def test_the_benchmark_scores_both_tasks_and_records_the_fit(trained, files, setup):
    train, test = files
    options = BenchmarkOptions(train=[f"planted={train}"], test=[f"held={test}"], models=resolve_models(["lm"]),
                               lm=SETTINGS, cache_dir=setup.cache_dir, progress=False, llm_cases=5)
    results = run_benchmark(options, ItemSpace(CATALOG))
    rows = {(r["model"], r["task"]): r for r in results["results"] if r["model"] != "references"}
    assert set(rows) == {(m, t) for m in ("lm-crs", "lm-crs-zero-shot") for t in ("recommendation", "response")}
    assert rows["lm-crs", "recommendation"]["cached"] is True  # the adapter `trained` fitted on the same file
    assert rows["lm-crs", "recommendation"]["metrics"]["recall@1"] == 1.0
    assert rows["lm-crs", "recommendation"]["training"] == trained.training_record
    assert rows["lm-crs-zero-shot", "response"]["train"] is None and "training" not in rows["lm-crs-zero-shot", "response"]
    assert "Quiet Lighthouse (1987)" in rows["lm-crs", "response"]["examples"][0]["answer"]
    assert results["settings"]["lm"]["steps"] == 10 and results["settings"]["lm"]["learning_rate"] == 2e-3
    record = trained.training_record
    fit_line = (f"| lm-crs | planted | {rows['lm-crs', 'recommendation']['fit_s']:.0f} (cached) | 10 | "
                f"{record['examples']} | {record['first_loss']:.2f} → {record['final_loss']:.2f} |")
    assert fit_line in markdown(results)  # the fits table: steps, examples and losses of the original fit


@pytest.mark.integration
def test_bad_models_and_training_sets_end_in_one_line(trained, setup, files, tmp_path, monkeypatch):
    from transformers import T5Config

    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    T5Config(d_model=8, d_ff=8, num_layers=1, num_heads=1).save_pretrained(tmp_path / "t5")
    for spec, needle in ((str(tmp_path / "t5"), "a 't5' model is not a causal language model"),
                         (str(tmp_path / "gone"), "no such model folder"),
                         ("synth-tests/no-such-model", "cannot load it")):
        with pytest.raises(SynthError, match=needle) as raised:
            LmCrsZeroShot(replace(setup, lm=LmSettings(model=spec)))
        assert "\n" not in str(raised.value) and spec in str(raised.value)
    with pytest.raises(SynthError, match="--lm-max-length 40 leaves no room for the dialogue"):
        LmCrsZeroShot(replace(setup, lm=LmSettings(max_length=40)))  # SmolLM2's chat frame takes 43 tokens
    seekers_only = [Conversation("s", (Utterance("seeker", "Hi", ()), Utterance("seeker", "Anyone?", ())))]
    with pytest.raises(SynthError, match="'quiet' has no recommender turns to train lm-crs on"):
        trained.fit(TrainingData("quiet", "f", seekers_only, [], []))

    result = CliRunner().invoke(app, [
        "benchmark", "--train", str(files[0]), "--test", str(files[1]), "--models", "lm-crs-zero-shot",
        "--lm-model", str(tmp_path / "t5"), "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"),
        "--no-progress",
    ])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    # the model's name, announced before it loads, then the error in one line
    assert result.stderr.splitlines() == [
        "lm-crs-zero-shot (no training)",
        f"error: --lm-model {tmp_path / 't5'}: a 't5' model is not a causal language model; lm-crs needs a "
        "decoder-only one (SmolLM2, Qwen2.5, Llama, ...)",
    ]


def test_lm_models_are_both_tasks_and_not_in_the_default_group():
    assert resolve_models(["lm"]) == ["lm-crs", "lm-crs-zero-shot"]
    assert tasks_of("lm-crs") == ["recommendation", "response"] and tasks_of("popularity") == ["recommendation"]
    assert not set(resolve_models(["default"])) & {"lm-crs", "lm-crs-zero-shot"}
    assert resolve_models(["all"]).count("lm-crs") == 1


def test_item_mentions_are_written_with_their_year():
    hustlers, heat = Item(id="h", title="Hustlers", year=2019), Item(id="1", title="Heat", year=1995)
    assert with_years('How did you like "Hustlers"?', [hustlers]) == 'How did you like "Hustlers (2019)"?'
    assert with_years("Heat (1995), Heat again", [heat]) == "Heat (1995), Heat again"  # already dated
    assert with_years("seen hustlers? Hustlers is great", [hustlers]) == "seen Hustlers (2019)? Hustlers is great"
