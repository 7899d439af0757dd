"""Settings from the command line: options mapped onto config-model fields, and `--set KEY=VALUE` pairs
checked against the model, so that no option or key can silently miss a field."""

from __future__ import annotations

import difflib
import typing
from collections.abc import Iterable, Mapping

import typer
from pydantic import BaseModel

from synth.config import merge_into
from synth.errors import SynthError

# The help's name of synth.retrievers.embeddings.DEFAULT_EMBEDDING_MODEL, which the commands use when no
# model is named (importing it here would slow `synth --help`; tests/unit/test_cli_options.py checks the two agree).
EMBEDDING_MODEL_DEFAULT_HELP = "[default: all-MiniLM-L6-v2]"
SET_HELP = "VALUE is read as YAML (numbers, booleans, lists); dotted keys reach nested settings; repeatable."


def parse_key_values(pairs: Iterable[str], option: str) -> dict[str, object]:
    """KEY=VALUE strings as a dict, each VALUE read as YAML (numbers, booleans, lists)."""
    import yaml

    parsed: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint=option)
        parsed[key.strip()] = yaml.safe_load(value)
    return parsed


def nested(flat: Mapping[str, object]) -> dict[str, object]:
    """{'form.max_turns': 30} -> {'form': {'max_turns': 30}}."""
    tree: dict[str, object] = {}
    for key, value in flat.items():
        *parents, leaf = key.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})  # type: ignore[assignment]
        node[leaf] = value
    return tree


def check_field_path(path: str, model: type[BaseModel], option: str = "--set") -> None:
    """Raise a one-line SynthError unless `path` (dotted) names a field of `model`; any key below a
    dict-valued field (e.g. vllm_engine_args.tensor_parallel_size) is accepted."""
    node, walked = model, []
    parts = path.split(".")
    for index, part in enumerate(parts):
        fields = node.model_fields
        if part not in fields:
            close = difflib.get_close_matches(part, list(fields), n=1)
            hint = f"; did you mean '{'.'.join([*walked, close[0]])}'?" if close else ""
            raise SynthError(f"{option}: no config field '{'.'.join([*walked, part])}' in {model.__name__}{hint}")
        walked.append(part)
        annotation = fields[part].annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            node = annotation
        elif annotation is dict or typing.get_origin(annotation) is dict:
            return
        elif index < len(parts) - 1:
            raise SynthError(f"{option}: config field '{'.'.join(walked)}' has no field '{parts[index + 1]}'")


def set_overrides(pairs: Iterable[str], model: type[BaseModel], option: str = "--set") -> dict[str, object]:
    """`--set KEY=VALUE` pairs as a nested override dict, every KEY checked against `model`."""
    flat = parse_key_values(pairs, option)
    for key in flat:
        check_field_path(key, model, option)
    return nested(flat)


def option_overrides(values: Mapping[str, object], fields: Mapping[str, str]) -> dict[str, object]:
    """The options that were given (not None) as a nested override dict; `fields` maps each option's
    parameter name to its dotted config field. Values of other parameters are left out."""
    return nested({fields[name]: value for name, value in values.items() if name in fields and value is not None})


def command_line_overrides(
    values: Mapping[str, object], fields: Mapping[str, str], pairs: Iterable[str], model: type[BaseModel]
) -> dict[str, object]:
    """Options first, then `--set` pairs on top (merged key by key, so `--set llm.n_ctx=8192` keeps
    `--judge-model`)."""
    return merge_into(option_overrides(values, fields), set_overrides(pairs, model))


def field_default(model: type[BaseModel], field: str) -> str:
    """'[default: VALUE]' for a help text, read from the model so that the help cannot drift from it."""
    value = model.model_fields[field].default
    shown = ("on" if value else "off") if isinstance(value, bool) else value
    return f"[default: {shown}]"


def check_format(input_format: str | None) -> None:
    """A usage error unless `input_format` is None (detected per path) or a known dialogue format."""
    from synth.datasets import FORMATS

    if input_format is not None and input_format not in FORMATS:
        raise typer.BadParameter(f"expected one of {', '.join(FORMATS)}", param_hint="--format")
