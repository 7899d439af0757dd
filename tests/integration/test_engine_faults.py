"""The README's first command on a machine where llama.cpp dies of an illegal instruction: a real ud2 planted where
an AMX build on a virtual machine without working AMX (with llama.cpp's extra buffer types), or a build for another
processor (everywhere), would fault (tests/simulated/planted_fault.py), on the real SmolLM2 and `synth generate`."""

import json
import os
import subprocess
import sys
from pathlib import Path

from synth.llm.engine_check import CHECKS_FILE
from synth.llm.gguf_models import resolve_model
from tests.helpers import SHORT_SMOLLM_ARGS, SMOLLM, read_records, run_synth, simulated

REBUILD = "pip install --force-reinstall --no-cache-dir --no-deps 'llama-cpp-python=="


def planted(mode: str, cache: Path) -> dict[str, str]:
    return simulated(plant_sigill=mode, cache=cache)


def test_a_model_that_faults_with_extra_buffer_types_plays_without_them(tmp_path):
    env = planted("extra-buffers", tmp_path / "cache")
    first = run_synth(*SHORT_SMOLLM_ARGS, "--n", "1", "--out", str(tmp_path / "run"), env=env)
    assert first.returncode == 0, first.stderr
    assert len(read_records(tmp_path / "run")) == 1
    assert "llama.cpp dies of SIGILL here with its extra buffer types" in first.stderr
    assert REBUILD in first.stderr  # the way back to full speed
    verdicts = json.loads((tmp_path / "cache" / CHECKS_FILE).read_text())
    assert list(verdicts.values()) == [{"extra_buffers": False, "faulted": "SIGILL"}]
    # the verdict is kept: with every load now faulting, the next check on this machine asks no child and falls back
    kept = subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                           "from synth.llm.engine_check import engine_settings; print(engine_settings(Path(sys.argv[1])))",
                           str(resolve_model(SMOLLM).path)],
                          capture_output=True, text=True, env={**os.environ, **planted("always", tmp_path / "cache")})
    assert kept.stdout.strip() == "EngineSettings(extra_buffers=False, faulted='SIGILL')", kept.stderr


def test_a_build_that_faults_everywhere_stops_before_any_dialogue_with_one_line(tmp_path):
    result = run_synth(*SHORT_SMOLLM_ARGS, "--n", "1", "--out", str(tmp_path / "run"),
                       env=planted("always", tmp_path / "cache"))
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: llama.cpp dies of SIGILL on this processor") and REBUILD in line
    assert not (tmp_path / "run" / "dialogues.jsonl").exists()


def test_a_fault_after_the_check_ends_with_one_line_not_a_core_dump(tmp_path):
    result = run_synth(*SHORT_SMOLLM_ARGS, "--n", "1", "--out", str(tmp_path / "run"),
                       env=planted("decode", tmp_path / "cache"))
    assert result.returncode == 132  # the shell's code for SIGILL, from an exit, not a death by the signal
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: llama.cpp dies of SIGILL on this processor") and REBUILD in line
