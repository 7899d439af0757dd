import pytest

from synth.runs.records import drop_torn_tail


@pytest.mark.parametrize("block", [4, 7, 1 << 16])
def test_drop_torn_tail(tmp_path, block):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c": 3')
    assert drop_torn_tail(path, block) == 7 and path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    assert drop_torn_tail(path, block) == 0 and path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    path.write_bytes(b'{"only": "half')
    assert drop_torn_tail(path, block) == 14 and path.read_bytes() == b""
    assert drop_torn_tail(tmp_path / "missing.jsonl", block) == 0
