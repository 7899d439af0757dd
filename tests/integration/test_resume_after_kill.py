"""kill -9 (and kill, as Ctrl-C) in the middle of a real embedded-model run, then the same command again: exactly n dialogues,
none lost or doubled, the records written before the kill unchanged, and (one dialogue at a time) the same records
as a run that was never interrupted."""

import json
import os
import signal
import subprocess

import pytest

from tests.helpers import (
    ONE_THREAD,
    SHORT_SMOLLM_ARGS,
    comparable,
    read_records,
    run_synth,
    synth_command,
    wait_for_first_dialogue,
)

pytestmark = pytest.mark.integration
# no reply re-samples: what is tested is the run's bookkeeping around a kill, not the reply checks (the persona
# summaries' test, test_persona_summaries.py, replays re-samples in a new process)
ARGS = list(SHORT_SMOLLM_ARGS)


def test_kill_9_then_resume(tmp_path, short_smollm_run):
    # one dialogue at a time, 2 are enough to kill between them and compare with a whole run that is the same
    # command, single-threaded as it is (dialogues in flight together when the kill comes: the openai server's
    # kill -9 test, tests/integration/test_openai_server.py, on the same runner)
    args = [*ARGS, *ONE_THREAD, "--n", "2", "--concurrency", "1"]
    killed = tmp_path / "killed"
    process = subprocess.Popen([synth_command(), *args, "--out", str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dialogues = killed / "dialogues.jsonl"
    wait_for_first_dialogue(process, dialogues)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    kept = [line for line in dialogues.read_text().splitlines(keepends=True) if line.endswith("\n")]
    assert len(kept) == 1

    resumed = run_synth(*args, "--out", str(killed))
    assert resumed.returncode == 0, resumed.stderr
    records = read_records(killed)
    assert len(records) == len({r.id for r in records}) == 2
    assert dialogues.read_text().startswith("".join(kept))
    assert comparable(records) == comparable(read_records(short_smollm_run))  # the same command never interrupted


def test_kill_or_ctrl_c_finishes_cleanly_then_resumes(tmp_path):
    """`kill` (SIGTERM) stops a run as Ctrl-C (SIGINT, turned into the same KeyboardInterrupt by Python) does: the
    finished dialogues kept, the manifest written as interrupted with their count."""
    process = subprocess.Popen(
        [synth_command(), *ARGS, "--n", "2", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    dialogues = tmp_path / "dialogues.jsonl"
    wait_for_first_dialogue(process, dialogues)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr.decode()
    assert "interrupted: finished dialogues and the manifest are in" in stderr.decode()
    assert "Traceback" not in stderr.decode()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["counts"]["written"] == len(read_records(tmp_path)) >= 1
    assert dialogues.read_text().endswith("\n")  # no record was cut

    assert run_synth(*ARGS, "--n", "2", "--out", str(tmp_path)).returncode == 0
    assert sorted(r.id for r in read_records(tmp_path)) == [f"pearl-3-{i:06d}" for i in range(2)]
