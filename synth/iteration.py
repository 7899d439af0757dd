"""Small iteration helpers shared across layers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TypeVar

T = TypeVar("T")


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """`items` in lists of `size` (the last may be shorter); `itertools.batched` once Python 3.12 is the floor."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
