"""Helpers shared by the test modules: driving the real `synth` command, reading run folders, scripted games,
hand-built dialogue records for the filters, and a tiny retrieval catalog. Test modules import from here,
never from one another."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from synth.filters.dialogue import FilterDialogue, from_record
from synth.game import GameRules, PearlGame
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.personas import GameSpec, ReviewIndex
from synth.prompting import PromptSet
from synth.records import DialogueRecord, Generation, Item, Outcome, Persona, Review, ScoredItem, Turn
from synth.retrievers.bm25 import BM25Retriever
from synth.simulators import Recommender, Sampling, Seeker
from synth.strategy.model import StrategyModel
from synth.turns import SEED_EXCHANGE

# ---- the real `synth` command ------------------------------------------------------------------------------

SMOLLM = "packaged:smollm2-135m"  # the fast packaged model (incoherent text, real llama.cpp)


def synth_command() -> str:
    """The installed console script next to this interpreter."""
    script = Path(sys.executable).parent / "synth"
    assert script.exists(), "synth is not installed in this environment: pip install -e '.[embedded,dense,langchain,hub,bench,lm,ray,dev]'"
    return str(script)


def run_synth(
    *args: str, env: dict[str, str] | None = None, timeout: float = 900, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """`synth *args` in a fresh process (in `cwd`), output captured; `env` adds to this process's environment."""
    return subprocess.run(
        [synth_command(), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def invoke_synth(*args: str) -> subprocess.CompletedProcess:
    """`synth *args` in this process, through the same CLI app (typer's CliRunner), output captured as by run_synth:
    the same parsing and code without a new interpreter importing torch and the embedding model again (5-8 s a
    call). For a command's output and files; where the process itself is tested (signals, native faults, the
    environment it reads at start, the console script), run_synth. An exception the CLI would print as a
    traceback is raised here."""
    from typer.testing import CliRunner

    from synth.cli import app

    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(["synth", *args], result.exit_code, result.stdout, result.stderr)


SIMULATED = Path(__file__).parent / "simulated"


def simulated(*, cache: Path | None = None, plant_sigill: str | None = None, install: str | None = None) -> dict[str, str]:
    """The environment of a child process under simulated conditions (tests/simulated/sitecustomize.py): llama.cpp
    dying of an illegal instruction (`plant_sigill`: extra-buffers, always or decode), only what the install of
    synth-crs[`install`] brings importable ("" for the core), synth's cache in `cache`."""
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(SIMULATED), os.environ.get("PYTHONPATH")]))}
    if plant_sigill is not None:
        env["SYNTH_PLANT_SIGILL"] = plant_sigill
    if install is not None:
        env["SYNTH_SIMULATED_INSTALL"] = install
    if cache is not None:
        env["SYNTH_CACHE_DIR"] = str(cache)
    return env


def wait_for_first_dialogue(process: subprocess.Popen, dialogues: Path, timeout_s: float = 600) -> None:
    """Wait until a running `synth generate` has written its first whole record to `dialogues`; fails the test when
    the process ends first or no dialogue comes in `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not (dialogues.exists() and dialogues.read_text().count("\n") >= 1):
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else process.returncode
        assert time.monotonic() < deadline, f"no dialogue finished in {timeout_s:.0f} s"
        time.sleep(0.2)


# short SmolLM2 dialogues (two utterances after the opening) without reply re-samples: the runs whose bookkeeping is
# tested (resume after a kill, Ray, engine faults); with ONE_THREAD (as each of two Ray workers on 2 cores computes),
# the whole run they are compared with
SHORT_SMOLLM_ARGS = ("generate", "--seed", "3", "--max-utterances", "2", "--reply-resamples", "0", "--model", SMOLLM,
                     "--no-progress")
ONE_THREAD = ("--set", "n_threads=1")
# the shared smollm_run's (tests/integration/conftest.py): hybrid retrieval, which test_generation_retrievers.py checks;
# free wording, whose recommender writes the think texts the report and the guess_contradiction filter read
SMOLLM_RUN_ARGS = ("--wording", "free", "--think", "--max-utterances", "6", "--retriever", "hybrid")


def requantized(model: Path, out: Path) -> Path:
    """`model` re-encoded to Q8_0 at `out` by llama.cpp's own quantizer (llama_model_quantize)."""
    import ctypes

    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype, params.allow_requantize = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, True
    assert llama_cpp.llama_model_quantize(str(model).encode(), str(out).encode(), ctypes.byref(params)) == 0
    return out


def generate_smollm(out: Path, *extra: str) -> subprocess.CompletedProcess:
    """`synth generate` with SmolLM2 (2 dialogues, seed 11 unless `extra` overrides); fails on a non-zero exit."""
    result = run_synth(
        "generate", "--n", "2", "--seed", "11", "--out", str(out), "--model", SMOLLM, "--no-progress", *extra
    )
    assert result.returncode == 0, result.stderr
    return result


# ---- run folders -------------------------------------------------------------------------------------------


def read_records(out: Path) -> list[DialogueRecord]:
    """Every record of a run folder's dialogues.jsonl, in file order."""
    lines = (out / "dialogues.jsonl").read_text().splitlines()
    return [DialogueRecord.model_validate_json(line) for line in lines]


def comparable(records: list[DialogueRecord]) -> dict[str, dict[str, Any]]:
    """Records as dicts, less what measures the machine rather than the dialogue (time, KV-cache reuse)."""
    return {r.id: r.model_dump(exclude={"generation": {"latency_s", "prompt_tokens_evaluated"}}) for r in records}


def write_run(folder: Path, records: list[DialogueRecord]) -> Path:
    """A minimal run folder holding `records` (dialogues.jsonl and a small manifest)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dialogues.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    (folder / "manifest.json").write_text(json.dumps({"fingerprint": "f", "counts": {"written": len(records)}}))
    return folder


# ---- scripted games (game logic, no model) -----------------------------------------------------------------


def first_candidate_script(messages: list[dict[str, str]], schema: dict) -> str:
    """Game logic only (a scripted backend): the recommender picks its first choice at once, the seeker
    accepts whatever it is offered."""
    props = schema["properties"]
    if "item" in props:
        return json.dumps({"think": "t", "item": props["item"]["enum"][0], "utterance": "Try it."})
    if "accept" in props:
        return json.dumps({"utterance": "Sure!", "accept": True})
    return json.dumps({"utterance": "Anything."})


def avoid_target(target_display: str):
    """A recommender that never picks the target while it has another candidate."""

    def script(messages, schema):
        props = (schema or {}).get("properties", {})
        if "item" in props:
            choices = [c for c in props["item"]["enum"] if c != target_display] or props["item"]["enum"]
            return json.dumps({"think": "t", "item": choices[0], "utterance": f"Try {choices[0]}."})
        return rule_following_script(messages, schema)

    return script


def make_game(
    catalog: dict[str, Item], reviews: list[Review], script, rules: GameRules = GameRules(), retries: int = 2,
    strategy: StrategyModel | None = None,
) -> tuple[PearlGame, ScriptedBackend]:
    """A PEARL game on `catalog` whose two simulators answer with `script`, and the backend (its calls);
    `strategy` is the table plans are drawn from (rules.strategy 'human')."""
    backend = ScriptedBackend(script)
    prompts = PromptSet.load(wording=rules.wording == "decided")
    sampling = Sampling(max_tokens=64, temperature=0.0, max_format_retries=retries)
    game = PearlGame(
        catalog, ReviewIndex.from_reviews(reviews), BM25Retriever(catalog), Seeker(backend, prompts, sampling),
        Recommender(backend, prompts, sampling), rules, sampling, strategy,
    )
    return game, backend


def play(game: PearlGame, spec: GameSpec) -> DialogueRecord:
    """One dialogue of `game`, played to its end."""
    return asyncio.run(game.play(spec))


# ---- hand-built dialogues for the filters ------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
TARGET = Item(id="t1", title="The Shawshank Redemption", year=1994, genres=["Drama"])


def record(turns: list[Turn], ended_by: str = "accepted", rid: str = "d1") -> DialogueRecord:
    """A record of the seed exchange then `turns`, for a seeker whose target is The Shawshank Redemption."""
    seed = [Turn(role=role, text=text) for role, text in SEED_EXCHANGE]
    persona = Persona(
        user_id="u1",
        general=[Review(user="u1", item="x", rating=2, text="Slow and dull; I fell asleep twice.", score=0.2)],
        target=Review(user="u1", item="t1", rating=10, text="Hope against all odds, and a friendship for life.", score=1.0),
    )
    return DialogueRecord(
        id=rid,
        user_id="u1",
        persona=persona,
        target_item=TARGET,
        turns=seed + turns,
        outcome=Outcome(accepted_target=ended_by == "accepted", ended_by=ended_by),
        generation=Generation(backend="scripted", model="none", prompt_hashes={}, sampling={}, seed=0),
    )


def candidates(*ids: str) -> list[ScoredItem]:
    """Retrieved candidates with these ids, all scored 1."""
    return [ScoredItem(item_id=i, score=1.0) for i in ids]


def clean_turns() -> list[Turn]:
    """A dialogue (after the seed exchange) that every filter keeps: one rejected suggestion, then the target."""
    return [
        Turn(role="recommender", text="What kind of story do you enjoy most?", think="Ask about taste."),
        Turn(role="seeker", text="I love stories about friendship and hope, with a lot of heart."),
        Turn(
            role="recommender", text="Heat (1995) is a tense crime film with a great cast.", think="They like tension.",
            recommended_item="o1", candidates=candidates("o1", "c2"),
        ),
        Turn(role="seeker", text="I've seen it and it felt long to me. Something more uplifting?", accepted=False),
        Turn(
            role="recommender", text="Then The Shawshank Redemption (1994): hope and friendship in a prison.",
            think="They want hope and friendship.", recommended_item="t1", candidates=candidates("t1", "c3"),
        ),
        Turn(role="seeker", text="That sounds wonderful, I'll watch it tonight! [EOD]", accepted=True),
    ]


def view(turns: list[Turn], ended_by: str = "accepted") -> FilterDialogue:
    """The filters' view of `record(turns, ended_by)`."""
    rec = record(turns, ended_by)
    return from_record(rec, rec.model_dump_json())


def replace(turns: list[Turn], index: int, **changes) -> list[Turn]:
    """A copy of `turns` with turn `index` changed."""
    turns = list(turns)
    turns[index] = turns[index].model_copy(update=changes)
    return turns


# ---- a tiny catalog for the retrievers ---------------------------------------------------------------------

SMALL = {
    "a": Item(id="a", title="Space Saga", genres=["Sci-Fi"], description="starships battle across the galaxy"),
    "b": Item(id="b", title="Love in Paris", genres=["Romance"], description="two strangers fall in love in paris"),
    "c": Item(id="c", title="Haunted Manor", genres=["Horror"], description="a ghost terrorises a family manor"),
}
QUERIES = {  # query -> the one item of SMALL it describes
    "a romance where strangers fall in love": "b",
    "ghost story in a haunted house": "c",
    "an epic battle between starships in the galaxy": "a",
}


def first_lines(source: Path, target: Path, count: int) -> Path:
    """The first `count` lines of `source` written to `target` (a small sample of a shared dataset)."""
    with source.open() as handle:
        target.write_text("".join(next(handle) for _ in range(count)))
    return target


def review(item: str, score: float, text: str = "") -> Review:
    """User u's review of `item`: a 0-1 `score` (on a 0-5 scale) and its words."""
    return Review(user="u", item=item, rating=score * 5, score=score, scale=[0, 5], text=text)
