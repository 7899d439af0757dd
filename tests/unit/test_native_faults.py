"""An illegal instruction in native code ends the process with one line, not a core dump (a real ud2, run the way
llama.cpp runs: from a ctypes call, outside the interpreter)."""

import resource
import subprocess
import sys

from tests.helpers import SIMULATED

FAULT = f"""
import sys, threading
sys.path.insert(0, {str(SIMULATED)!r})
from planted_fault import illegal_instruction
if sys.argv[1] == "handled":
    from synth.llm.native_faults import exit_with_line_on_illegal_instruction
    exit_with_line_on_illegal_instruction("llama.cpp died here: rebuild it")
worker = threading.Thread(target=illegal_instruction)
worker.start()
worker.join()
print("not reached")
"""


def run_fault(mode: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", FAULT, mode], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))


def test_an_illegal_instruction_kills_the_process_unless_handled():
    assert run_fault("plain").returncode == -4  # SIGILL: what a user met before


def test_the_handler_prints_one_line_and_exits_132():
    result = run_fault("handled")
    assert result.returncode == 132
    assert result.stderr == "error: llama.cpp died here: rebuild it\n" and result.stdout == ""
