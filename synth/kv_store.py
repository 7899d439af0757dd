"""One key-value store on SQLite for synth's disk caches (LLM requests, item and persona summaries, sentence
embeddings): a table of text keys and text or bytes values, written in transactions, read by one key or many.

The store keeps a write-ahead log and syncs it to disk at checkpoints, not at every commit: a commit costs
tens of microseconds instead of a disk flush (about 19 ms here), which the request cache pays on every LLM
call. A process that crashes loses nothing committed; a machine that loses power may lose the last commits,
which for a cache means asking again."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

Value = str | bytes
_BATCH = 500  # keys per SELECT ... IN (...), under SQLite's limit on bound parameters


class KeyValueStore:
    """SQLite table `table` at `path`: key -> value (text or bytes); the folder is made when missing."""

    def __init__(self, path: Path, table: str):
        if not re.fullmatch(r"[a-z_]+", table):
            raise ValueError(f"table name '{table}' is not a plain lower-case name")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self._table = path, table
        self._db = sqlite3.connect(path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, value NOT NULL)")

    def get(self, key: str) -> Value | None:
        row = self._db.execute(f"SELECT value FROM {self._table} WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def get_many(self, keys: Iterable[str]) -> dict[str, Value]:
        """The stored values of `keys` (those found), read in batches."""
        unique = list(dict.fromkeys(keys))
        found: dict[str, Value] = {}
        for start in range(0, len(unique), _BATCH):
            chunk = unique[start : start + _BATCH]
            marks = ",".join("?" * len(chunk))
            found.update(self._db.execute(f"SELECT key, value FROM {self._table} WHERE key IN ({marks})", chunk))
        return found

    def put(self, key: str, value: Value) -> None:
        self.put_many({key: value})

    def put_many(self, values: Mapping[str, Value]) -> None:
        with self._db:
            self._db.executemany(f"INSERT OR REPLACE INTO {self._table} VALUES (?, ?)", values.items())

    def close(self) -> None:
        self._db.close()
