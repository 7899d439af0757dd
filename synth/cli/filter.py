"""`synth filter`: drop bad dialogues, each drop with its filter, reason and evidence."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Optional

import typer

from synth.cli.console import progress_option
from synth.cli.settings import SET_HELP, command_line_overrides, field_default
from synth.config import BackendConfig, load_config

# Each option that is a filter setting -> its dotted FilterConfig field; every other setting (the filters' own,
# e.g. form.max_turns, and llm_screen, examples, ...) is reached with --set or --config. Checked against
# FilterConfig by tests/unit/test_cli_options.py.
SETTING_OPTIONS = {
    "filters": "filters",
    "judge": "judge",
    "nli_model": "nli_model",
    "nli_threshold": "nli_threshold",
    "judge_backend": "llm.backend",
    "judge_model": "llm.model",
    "judge_base_url": "llm.base_url",
    "judge_concurrency": "llm.concurrency",
    "preference_on": "preference_on",
}
INPUT_FORMATS = ("auto", "synth", "pearl")


def filter_command(
    ctx: typer.Context,
    source: Path = typer.Argument(
        ..., help="A run folder (its dialogues.jsonl), a synth .jsonl or a PEARL-format .json/.jsonl."
    ),
    out: Path = typer.Option(
        ..., "--out", help="Output folder: dialogues.jsonl (kept), dropped.jsonl, filter_report.json."
    ),
    input_format: str = typer.Option("auto", "--format", help="auto, synth or pearl."),
    filters: Optional[str] = typer.Option(
        None,
        help="Comma-separated filters or groups: basic, preference, all, repetition, target_leak, wrong_acceptance, "
        "recommender_faults, form, dedup (near-duplicates), quality (the reply detectors, opt-in; in all), "
        "persona_contradiction, guess_contradiction, satisfaction (IARD-trained predictor, opt-in) [default: basic].",
    ),
    judge: Optional[str] = typer.Option(None, help="Preference filters' judge: llm (default) or nli (a cross-encoder)."),
    nli_model: Optional[str] = typer.Option(
        None, help="NLI cross-encoder, hub name or folder [default: cross-encoder/nli-deberta-v3-xsmall]."
    ),
    nli_threshold: Optional[float] = typer.Option(
        None, help="Contradiction probability that drops a dialogue [default: 0.8]."
    ),
    judge_backend: Optional[str] = typer.Option(
        None, help=f"LLM judge backend: llamacpp (embedded), openai or vllm {field_default(BackendConfig, 'backend')}."
    ),
    judge_model: Optional[str] = typer.Option(None, help="LLM judge model (as for `synth generate --model`)."),
    judge_base_url: Optional[str] = typer.Option(
        None, help="LLM judge endpoint (openai backend) [env: OPENAI_BASE_URL]."
    ),
    judge_concurrency: Optional[int] = typer.Option(
        None, help=f"LLM judge calls in flight at once {field_default(BackendConfig, 'concurrency')}."
    ),
    preference_on: Optional[str] = typer.Option(
        None, help="kept: judge only what the basic filters kept (default); all: judge every dialogue (full overlaps)."
    ),
    setting: Optional[list[str]] = typer.Option(
        None, "--set", help="FILTER.OPTION=VALUE or any other filter setting, e.g. form.max_turns=30 or "
        "repetition.similarity=85; it wins over the options. " + SET_HELP,
    ),
    config: Optional[Path] = typer.Option(None, "--config", help="YAML file of filter settings."),
    overwrite: bool = typer.Option(False, help="Replace the outputs already in --out."),
    progress: bool = progress_option(),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of tables."),
    ray: Optional[str] = typer.Option(
        None, "--ray", help="Run the basic and satisfaction filters on Ray Data: auto, local or a cluster ADDRESS "
        "('ray' extra)."
    ),
    ray_workers: Optional[int] = typer.Option(None, min=1, help="Ray Data actors [default: the cluster's CPUs]."),
) -> None:
    """Drop bad dialogues (basic and preference-based filters), each drop with its filter, reason and evidence."""
    import json

    from rich.console import Console

    from synth.filters.config import FilterConfig
    from synth.filters.pipeline import filter_run
    from synth.filters.report import print_report

    if input_format not in INPUT_FORMATS:
        raise typer.BadParameter("expected auto, synth or pearl", param_hint="--format")
    chosen = [name.strip() for name in filters.split(",") if name.strip()] if filters else None
    overrides = command_line_overrides({**ctx.params, "filters": chosen}, SETTING_OPTIONS, setting or [], FilterConfig)
    settings = load_config(config, overrides, FilterConfig)
    report = asyncio.run(
        filter_run(source, out, settings, format=input_format, overwrite=overwrite, progress=progress,  # type: ignore[arg-type]
                   ray_address=ray, ray_workers=ray_workers)
    )
    if as_json:
        typer.echo(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print_report(report, Console())
    summary = f"kept {report.kept} of {report.dialogues} dialogues in {out}; reasons in {out / 'dropped.jsonl'}"
    typer.echo(summary, err=as_json)
