"""Hugging Face `datasets` Features derived from synth's pydantic records, so every split has the same
schema (an empty split or an all-null column included). Free-form dicts are stored as JSON strings."""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal, Union

from pydantic import BaseModel

_SCALARS = {str: "string", int: "int64", float: "float64", bool: "bool"}


def record_features(model: type[BaseModel]) -> Any:
    """`datasets.Features` for rows made by `record_row` from instances of `model`."""
    from datasets import Features

    return Features({name: _feature(field.annotation) for name, field in model.model_fields.items()})


def record_row(record: BaseModel) -> dict[str, Any]:
    """A record as a row that matches `record_features`: dict fields become JSON text."""
    return _row_value(type(record), record.model_dump(mode="json"))


def _feature(annotation: Any) -> Any:
    from datasets import List, Value

    annotation = _strip_optional(annotation)
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return Value("string")
    if origin is list:
        return List(_feature(typing.get_args(annotation)[0]))
    if origin is dict:
        return Value("string")  # JSON text: keys vary between records
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {name: _feature(field.annotation) for name, field in annotation.model_fields.items()}
    if annotation in _SCALARS:
        return Value(_SCALARS[annotation])
    raise TypeError(f"no datasets feature for {annotation!r}")


def _row_value(annotation: Any, value: Any) -> Any:
    annotation = _strip_optional(annotation)
    if value is None:
        return None
    origin = typing.get_origin(annotation)
    if origin is dict:
        return json.dumps(value, sort_keys=True)
    if origin is list:
        inner = typing.get_args(annotation)[0]
        return [_row_value(inner, v) for v in value]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {name: _row_value(field.annotation, value.get(name)) for name, field in annotation.model_fields.items()}
    return value


def _strip_optional(annotation: Any) -> Any:
    """X | None -> X (a union of two real types is not supported)."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) != 1:
            raise TypeError(f"no datasets feature for the union {annotation!r}")
        return options[0]
    return annotation
