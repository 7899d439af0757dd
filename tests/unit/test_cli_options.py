"""The CLI's options cannot drift from the config models, `--set` reaches every setting, and every command ends
a SynthError with one line and exit code 2. Driven through typer's CliRunner with the runners replaced: no model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from synth.cli import app
from synth.cli import benchmark as benchmark_cli
from synth.cli import filter as filter_cli
from synth.cli import generate as generate_cli
from synth.cli.exports import SPLITS
from synth.cli.settings import EMBEDDING_MODEL_DEFAULT_HELP, check_field_path, command_line_overrides
from synth.config import BackendConfig, GenerateConfig
from synth.errors import SynthError
from synth.export.splits import DEFAULT_SPLITS, parse_splits
from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL
from synth.runs.manifest import Counts, Manifest, Tokens

# Options of `synth generate` that say how or where to run, not which dialogues: no GenerateConfig field.
GENERATE_RUN_OPTIONS = {
    "out", "ray", "ray_workers", "ray_shards", "ray_gpus_per_worker", "dry_run", "dry_run_sample", "setting", "config",
    "overwrite", "plan", "as_json", "coverage_of",
}
FILTER_RUN_OPTIONS = {
    "source", "out", "input_format", "setting", "config", "overwrite", "progress", "as_json", "ray", "ray_workers",
}


def parameters(*command: str) -> set[str]:
    """The parameter names of `synth COMMAND [SUBCOMMAND]`."""
    group = typer.main.get_command(app)
    for name in command:
        group = group.commands[name]  # type: ignore[attr-defined]
    return {param.name for param in group.params}


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# --- options against the config models ---------------------------------------------------------------------


def test_every_generate_config_field_has_an_option_or_is_named_as_set_only():
    by_option = list(generate_cli.SETTING_OPTIONS.values())
    assert len(by_option) == len(set(by_option)), "two options set one field"
    assert not set(by_option) & set(generate_cli.SET_ONLY_FIELDS)
    assert set(by_option) | set(generate_cli.SET_ONLY_FIELDS) == set(GenerateConfig.model_fields)


def test_every_generate_option_is_a_setting_or_a_run_option():
    options = parameters("generate") - {"ctx"}
    assert set(generate_cli.SETTING_OPTIONS) <= options
    assert options - set(generate_cli.SETTING_OPTIONS) == GENERATE_RUN_OPTIONS


def test_every_filter_option_maps_to_a_filter_config_field():
    from synth.filters.config import FilterConfig

    for path in filter_cli.SETTING_OPTIONS.values():
        check_field_path(path, FilterConfig)
    assert parameters("filter") - set(filter_cli.SETTING_OPTIONS) == FILTER_RUN_OPTIONS


def test_benchmark_llm_options_map_to_backend_settings():
    assert set(benchmark_cli.LLM_OPTIONS.values()) <= set(BackendConfig.model_fields)
    assert set(benchmark_cli.LLM_OPTIONS) <= parameters("benchmark")


def test_the_help_names_the_default_embedding_model_and_splits():
    shown = EMBEDDING_MODEL_DEFAULT_HELP.removeprefix("[default: ").removesuffix("]")
    assert DEFAULT_EMBEDDING_MODEL.split("/")[-1] == shown
    assert parse_splits(SPLITS) == DEFAULT_SPLITS


# --- generate: settings from the options, --set and --config ----------------------------------------------


def test_set_reaches_nested_and_option_less_settings(tmp_path):
    config = tmp_path / "gen.yaml"
    config.write_text("n: 7\ntemperature: 0.5\nset_rules:\n  n_far: 2\n")
    settings = generate_cli.generate_settings(
        config,
        {"n": 4, "seed": None, "price_prompt": 1.5, "vllm_arg": {"enforce_eager": True}, "out": Path("x")},
        ["set_rules.easy_margin=0.6", "k_schedule=[2, 1]", "vllm_engine_args.tensor_parallel_size=2", "seed=9"],
    )
    assert (settings.n, settings.seed, settings.temperature) == (4, 9, 0.5)  # option over file, --set over both
    assert (settings.set_rules.easy_margin, settings.set_rules.n_far) == (0.6, 2)
    assert settings.k_schedule == [2, 1] and settings.price_prompt_per_mtok == 1.5
    assert settings.vllm_engine_args == {"enforce_eager": True, "tensor_parallel_size": 2}


@pytest.mark.parametrize(
    "pair, needle",
    [
        ("nope=1", "--set: no config field 'nope' in GenerateConfig"),
        ("set_rules.easy_margn=0.6", "no config field 'set_rules.easy_margn' in GenerateConfig; did you mean 'set_rules.easy_margin'?"),
        ("n.value=3", "config field 'n' has no field 'value'"),
    ],
)
def test_an_unknown_set_key_is_a_one_line_error_naming_it(tmp_path, pair, needle):
    result = invoke("generate", "--out", str(tmp_path), "--set", pair)
    assert needle in one_line_error(result)
    assert not any(tmp_path.iterdir())


def test_set_without_equals_sign_is_a_usage_error(tmp_path):
    result = invoke("generate", "--out", str(tmp_path), "--set", "n")
    assert result.exit_code == 2 and "expected KEY=VALUE" in result.stderr


@pytest.fixture
def played(monkeypatch):
    """`synth generate` with the runner replaced: records the settings it was given; `outcome` steers it."""
    seen: dict = {"outcome": "ok"}

    async def fake_generate(settings: GenerateConfig, out: Path, *, overwrite: bool = False) -> Manifest:
        seen.update(settings=settings, out=out, overwrite=overwrite)
        if seen["outcome"] == "interrupt":
            raise KeyboardInterrupt
        if seen["outcome"] == "error":
            raise SynthError("model file not found: gone.gguf")
        failed = settings.n if seen["outcome"] == "all failed" else 0
        counts = Counts(requested=settings.n, written=settings.n, accepted_target=1, failed=failed)
        return Manifest(status="finished", counts=counts, tokens=Tokens(prompt=10, completion=5), wall_s=0.5)

    monkeypatch.setattr("synth.runner.generate", fake_generate)
    return seen


def test_generate_passes_options_and_set_to_the_runner(played, tmp_path):
    result = invoke(
        "generate", "--n", "2", "--out", str(tmp_path), "--no-progress", "--price-completion", "2",
        "--set", "ask_turns=2", "--set", "set_rules.set_size=4", "--vllm-arg", "max_model_len=2048", "--overwrite",
    )
    assert result.exit_code == 0, result.output
    settings = played["settings"]
    assert (settings.n, settings.progress, settings.ask_turns, settings.set_rules.set_size) == (2, False, 2, 4)
    assert settings.price_completion_per_mtok == 2 and settings.vllm_engine_args == {"max_model_len": 2048}
    assert played["overwrite"] and played["out"] == tmp_path
    assert f"wrote 2 dialogues to {tmp_path / 'dialogues.jsonl'}" in result.stdout


@pytest.mark.parametrize(
    "outcome, code, line",
    [
        ("error", 2, "error: model file not found: gone.gguf"),
        ("all failed", 2, "error: every dialogue failed; see 'errors' in the records"),
        ("interrupt", 130, "interrupted: finished dialogues and the manifest are in"),
    ],
)
def test_generate_ends_errors_and_interrupts_with_one_line(played, tmp_path, outcome, code, line):
    played["outcome"] = outcome
    result = invoke("generate", "--out", str(tmp_path), "--no-progress")
    assert result.exit_code == code, result.output
    assert line in result.stderr and "Traceback" not in result.output


def test_a_bad_option_value_names_the_config_field(tmp_path):
    assert "config field 'backend'" in one_line_error(invoke("generate", "--out", str(tmp_path), "--backend", "nope"))


@pytest.mark.parametrize("option", ["--think", "--persona-summaries"])
def test_a_free_wording_option_at_the_decided_default_names_wording_free(tmp_path, option):
    """--think and --persona-summaries feed the free simulators' prompts: at the default wording they would cost
    calls and change nothing, so the error says what to add."""
    assert "add --wording free" in one_line_error(invoke("generate", "--out", str(tmp_path), option))
    assert GenerateConfig(wording="free", think=True, persona_summaries=True).wording == "free"


# --- other commands ------------------------------------------------------------------------------------------


def test_filter_set_merges_with_the_judge_options():
    from synth.filters.config import FilterConfig

    overrides = command_line_overrides(
        {"judge_model": "m", "judge_concurrency": 2, "out": "x"}, filter_cli.SETTING_OPTIONS, ["llm.n_ctx=8192"],
        FilterConfig,
    )
    assert overrides == {"llm": {"model": "m", "concurrency": 2, "n_ctx": 8192}}


def test_filter_names_an_unknown_set_key(tmp_path):
    result = invoke("filter", str(tmp_path), "--out", str(tmp_path / "out"), "--set", "form.max_turn=3")
    assert "config field 'form.max_turn'" in one_line_error(result) and "did you mean 'form.max_turns'" in result.stderr


class _WordCountEncoder:
    """A stand-in sentence encoder named after the model it was asked for: one vector per text (its word count
    and 1), so the similarity it leads to is a number the test can check."""

    def __init__(self, name: str):
        self.name = name

    def encode_documents(self, texts):
        import numpy as np

        return np.array([[len(text.split()), 1.0] for text in texts], dtype=np.float32)


def test_stats_uses_the_default_embedding_model(monkeypatch, scripted_run):
    monkeypatch.setattr("synth.analysis.stats.run.similarity_encoder", _WordCountEncoder)
    result = invoke("stats", str(scripted_run), "--json", "--no-progress")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["similarity"]["model"] == DEFAULT_EMBEDDING_MODEL and stats["similarity"]["dialogues"] == 20
    assert 0.5 < stats["inter_dialogue_similarity"] <= 1.0  # cosines of the stand-in's positive vectors


@pytest.mark.parametrize(
    "args, needle",
    [
        (["merge", "nowhere-a", "nowhere-b", "--out", "merged"], "nowhere-a"),
        (["benchmark", "--train", "x", "--test", "y", "--backend", "nope"], "config field 'backend'"),
        (["stats", "nowhere.jsonl", "--no-similarity", "--no-progress"], "nowhere.jsonl"),
        (["report", "nowhere", "--no-similarity", "--no-acts", "--no-progress"], "nowhere"),
        (["export", "nowhere", "out", "--to", "pearl", "--no-progress"], "nowhere"),
    ],
)
def test_every_command_ends_a_synth_error_with_one_line(tmp_path, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    assert needle in one_line_error(invoke(*args))


def test_the_cli_imports_no_heavy_library_at_start():
    code = (
        "import sys, synth.cli; "
        "print(sorted(m for m in ('torch', 'datasets', 'synth.runner', 'synth.filters', 'synth.retrievers') "
        "if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_filter_help_names_every_filter_and_group():
    from synth.filters.config import FILTERS, GROUPS

    shown = " ".join(CliRunner().invoke(app, ["filter", "--help"], terminal_width=400).output.split())
    assert [name for name in (*GROUPS, *FILTERS) if name not in shown] == []


def test_the_docs_name_each_run_only_option_of_generate():
    flags = {param.name: param.opts[0] for param in typer.main.get_command(app).commands["generate"].params}
    for doc in ("docs/quickstart.md", "docs/generation.md"):
        text = " ".join((Path(__file__).resolve().parents[2] / doc).read_text().split())
        assert [name for name in sorted(GENERATE_RUN_OPTIONS) if f"`{flags[name]}`" not in text] == [], doc
