"""The one SQLite store behind synth's disk caches: text and bytes values, many keys at once, reopened."""

import pytest

from synth.kv_store import KeyValueStore


def test_values_survive_a_reopen_and_many_keys_are_read_in_batches(tmp_path):
    path = tmp_path / "deep" / "cache.sqlite"
    store = KeyValueStore(path, "things")
    store.put("a", "text")
    store.put_many({f"k{i}": bytes([i % 256]) * 4 for i in range(1_200)})  # more keys than one SELECT binds
    store.put("a", "new text")
    store.close()
    again = KeyValueStore(path, "things")
    assert again.get("a") == "new text" and again.get("missing") is None
    found = again.get_many([f"k{i}" for i in range(1_200)] + ["missing", "k3"])
    assert len(found) == 1_200 and found["k1199"] == bytes([1199 % 256]) * 4
    assert KeyValueStore(path, "other").get("a") is None  # tables keep their own keys


def test_a_table_name_is_never_spliced_into_sql_unchecked(tmp_path):
    with pytest.raises(ValueError, match="plain lower-case name"):
        KeyValueStore(tmp_path / "c.sqlite", "x; DROP TABLE y")
