"""The reply checks: each detector on replies that show its defect and on ordinary ones, the turn loop's
re-sampling (new seed, more temperature, the avoid line, the record of what was turned down), and the
`quality` filter. The scripted backend here stands in for game logic only; real-model runs are in
tests/integration."""

import asyncio
import json

import pytest

from synth.analysis.defects import ReplyContext, avoid_line, check_reply
from synth.config import GenerateConfig
from synth.errors import SynthError
from synth.filters.config import FilterConfig
from synth.filters.pipeline import filter_run
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.prompting import PromptSet, example_replies, prompts_folder
from synth.records import Item
from synth.runner import generate
from synth.runs.manifest import read_manifest
from synth.runs.records import iter_records
from synth.simulators import ExampleChoice, Sampling, Seeker, Usage

SEEKER = ReplyContext(
    "seeker",
    other_last="What kind of action movie do you like the most these days?",
    own_earlier=("I would rather watch something with romance and sci-fi elements, like Arrival (2016).",),
    liked=("Arrival (2016)",),
    disliked=("Blue Streak (1999)",),
    hidden_target="The Matrix (1999)",
    examples=("I have, and the shark attacks were too tense for me.",),
)
RECOMMENDER = ReplyContext(
    "recommender",
    descriptions={
        "La La Land (2016)": "A jazz pianist and an actress fall in love in Los Angeles.",
        "Notting Hill (1999)": "A London bookseller falls for a famous American actress.",
    },
    examples=("Ocean's Eleven (2001) might be just right: a slick heist full of twists.",),
)


@pytest.mark.parametrize(
    ("text", "context", "named", "expected"),
    [
        ("What kind of action movie do you like the most? I love heists.", SEEKER, None, "copies_other"),
        ("I would rather watch something with romance and sci-fi elements, like Arrival.", SEEKER, None, "repeats_itself"),
        ("That is a great choice for the Seeker.", SEEKER, None, "third_person"),
        ("I don't think Get Out matches your taste.", SEEKER, None, "speaks_as_other"),
        ("I really enjoyed Blue Streak, it was a blast.", SEEKER, None, "contradicts_review"),
        ("I didn't enjoy Arrival at all.", SEEKER, None, "contradicts_review"),
        ("Honestly, The Matrix would be perfect tonight.", SEEKER, None, "names_target"),
        ("I have, and the shark attacks were too tense.", SEEKER, None, "copies_example"),
        ("La La Land (2016) follows a London bookseller falls for a star.", RECOMMENDER, "La La Land (2016)", "borrows_description"),
        ("Heat might be just right: a slick action full of twists.", RECOMMENDER, "Heat (1995)", "copies_example"),
        ("Hannibal (2001) is a thriller, which aligns well with my tastes.", RECOMMENDER, "Hannibal (2001)", "speaks_as_other"),
    ],
)
def test_each_detector_finds_its_defect(text, context, named, expected):
    assert expected in [d.name for d in check_reply(text, context, named)]


@pytest.mark.parametrize(
    ("text", "context", "named"),
    [
        ("Oh, Arrival was amazing! Something that thoughtful would be great.", SEEKER, None),
        ("Blue Streak was pretty bad, honestly. Anything smarter?", SEEKER, None),
        ("Mostly heists, I think. What would you pick?", SEEKER, None),
        ("La La Land (2016): a jazz pianist and an actress fall in love.", RECOMMENDER, "La La Land (2016)"),
        ("Have you seen Heat (1995)? Great cast.", RECOMMENDER, "Heat (1995)"),
    ],
)
def test_ordinary_replies_pass(text, context, named):
    assert check_reply(text, context, named) == []


def test_a_one_word_title_needs_its_capital():
    context = ReplyContext("seeker", hidden_target="Heat (1995)")
    assert check_reply("I can't stand the heat of summer movies.", context) == []
    assert [d.name for d in check_reply("I think Heat would be fun.", context)] == ["names_target"]


class RecordingBackend(ScriptedBackend):
    """The scripted backend, keeping each call's seed and temperature."""

    def __init__(self, script):
        super().__init__(script)
        self.settings: list[tuple[int | None, float]] = []

    async def complete(self, messages, *, max_tokens, temperature=0.0, seed=None, **kwargs):
        self.settings.append((seed, temperature))
        return await super().complete(messages, max_tokens=max_tokens, temperature=temperature, seed=seed, **kwargs)


def praising_until_told(messages, schema):
    """A seeker that praises the movie its review panned until the prompt says what to avoid."""
    told = "This time:" in messages[-1]["content"]
    text = "Blue Streak was not for me; something calmer?" if told else "I really enjoyed Blue Streak, it was a blast."
    return json.dumps({"utterance": text})


def seeker_reply(script, resamples: int):
    backend = RecordingBackend(script)
    seeker = Seeker(backend, PromptSet.load(), Sampling(max_tokens=64, temperature=0.7, reply_resamples=resamples))
    usage = Usage()
    target = Item(id="t", title="The Matrix", year=1999)
    reply = asyncio.run(seeker.reply("system", [], target=target, recommended=None, opinion=None, seed=500,
                                     usage=usage, context=SEEKER))
    return reply, usage, backend


def test_a_reply_with_a_defect_is_sampled_again_with_what_to_avoid():
    reply, usage, backend = seeker_reply(praising_until_told, resamples=2)
    assert reply.utterance == "Blue Streak was not for me; something calmer?"
    assert [r.text for r in reply.checks.resampled] == ["I really enjoyed Blue Streak, it was a blast."]
    assert reply.checks.resampled[0].reasons[0].startswith("contradicts_review")
    assert reply.checks.kept_defects == []
    assert usage.reply_resamples == 1 and usage.calls == 2
    assert backend.calls[1][-1]["content"].endswith(avoid_line(check_reply("I really enjoyed Blue Streak.", SEEKER)))
    assert backend.settings == [(500, 0.7), (510, pytest.approx(0.9))]  # next seed, a little more temperature


def test_at_the_limit_the_reply_with_fewest_defects_is_kept_and_recorded():
    always = lambda messages, schema: json.dumps({"utterance": "I really enjoyed Blue Streak, it was a blast."})  # noqa: E731
    reply, usage, backend = seeker_reply(always, resamples=2)
    assert usage.reply_resamples == 2 and len(backend.calls) == 3
    assert len(reply.checks.resampled) == 2 and reply.checks.kept_defects[0].startswith("contradicts_review")


def test_without_resamples_the_defect_is_only_recorded():
    reply, usage, backend = seeker_reply(praising_until_told, resamples=0)
    assert reply.utterance.startswith("I really enjoyed") and len(backend.calls) == 1
    assert reply.checks.resampled == [] and reply.checks.kept_defects


def test_a_run_counts_its_resamples_and_the_quality_filter_drops_with_reasons(tmp_path):
    """The rule-following script states the same taste twice: the second time is a self-repeat, re-sampled
    (the script cannot vary, so it is kept with its defect); the counts reach records and manifest, and the
    quality filter drops those dialogues naming the detector and the turn."""
    run, filtered = tmp_path / "run", tmp_path / "filtered"
    config = GenerateConfig(n=4, seed=3, strategy="pearl", ask_turns=2, wording="free", progress=False)
    asyncio.run(generate(config, run, backend=ScriptedBackend(rule_following_script)))
    records = [found.record for found in iter_records(run / "dialogues.jsonl")]
    resampled = sum(len(t.checks.resampled) for r in records for t in r.turns if t.checks)
    assert resampled > 0 and resampled == sum(r.generation.reply_resamples for r in records)
    counts = read_manifest(run / "manifest.json").counts
    assert counts.reply_resamples == resampled and counts.replies_kept_with_defects > 0
    report = asyncio.run(filter_run(run, filtered, FilterConfig(filters=["quality"])))
    assert report.dropped > 0
    dropped = [json.loads(line) for line in (filtered / "dropped.jsonl").read_text().splitlines()]
    assert all("repeats_itself" in d["drops"][0]["reason"] for d in dropped)


def test_a_prompts_folder_without_its_examples_says_which_file(tmp_path):
    for template in ("seeker_system", "seeker_turn", "recommender_system", "recommender_turn"):
        (tmp_path / f"{template}.j2").write_text((prompts_folder() / f"{template}.j2").read_text())
    with pytest.raises(SynthError, match="prompt examples missing: .*pearl_examples.yaml"):
        PromptSet.load(tmp_path)
    (tmp_path / "pearl_examples.yaml").write_text("seeker: []\nrecommender: [1]\n")
    with pytest.raises(SynthError, match="pearl_examples.yaml: 'seeker' must be a non-empty list"):
        PromptSet.load(tmp_path)


def test_each_dialogue_draws_its_own_examples_and_the_checks_know_every_one():
    examples = PromptSet.load().examples
    drawn = [ExampleChoice.draw(examples, seed) for seed in range(200)]
    assert len({d.seeker["reply"] for d in drawn}) == len(examples["seeker"])
    assert len({d.opening for d in drawn}) == len(examples["openings"])
    assert ExampleChoice.draw(examples, 7) == ExampleChoice.draw(examples, 7)
    replies = example_replies(examples)
    assert all(d.seeker["reply"] in replies and d.recommender["utterance"] in replies for d in drawn)
