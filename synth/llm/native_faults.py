"""One line instead of a core dump when native code dies of an illegal instruction in this process.

Python's `signal` module cannot catch SIGILL: its handler only sets a flag, and the faulting instruction runs
again. A C-level handler can: ctypes makes one from a Python function, which writes the line and ends the
process with the shell's status for the signal (132). llama.cpp's threads run outside the interpreter (ctypes
releases the GIL around every llama.cpp call), so the handler can take the GIL and run.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Any

_installed: list[Any] = []  # the handler stays referenced for the life of the process


def exit_with_line_on_illegal_instruction(line: str) -> None:
    """From now on, a SIGILL in this process prints `line` on stderr and exits with status 132 (Linux only)."""
    if _installed or not sys.platform.startswith("linux"):
        return
    message = f"error: {line}\n".encode()
    status = 128 + signal.SIGILL

    @ctypes.CFUNCTYPE(None, ctypes.c_int)
    def handler(_signum: int) -> None:
        os.write(2, message)
        os._exit(status)

    libc = ctypes.CDLL(None, use_errno=True)
    libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.signal.restype = ctypes.c_void_p
    libc.signal(signal.SIGILL, ctypes.cast(handler, ctypes.c_void_p))
    _installed.append(handler)
