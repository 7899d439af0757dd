"""One writer per run folder: `synth generate`, `filter` and `merge` hold an exclusive lock on OUT/.lock while they
write there, so a second one on the same `--out` stops at once instead of appending its records between the first
one's. The lock is the kernel's (`flock`): it dies with its process, kill -9 included, so a killed run leaves
nothing that blocks its resume."""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from synth.errors import InputError, SynthError
from synth.runs.layout import DIALOGUES_FILE, run_file

LOCK_FILE = ".lock"  # names the writing process (id, host, start time); the lock dies with the process
log = logging.getLogger(__name__)


@contextmanager
def writing_to(out_dir: Path) -> Iterator[None]:
    """Hold `out_dir`'s lock for the block; a SynthError naming the process that holds it, if another does. A
    folder made here for a block that fails before writing anything is removed again (bad input leaves no
    folder behind). On a file system without locks (some network mounts) the block runs unlocked, with a
    warning. A folder holding a compressed run (kept to be read, as the reference corpus is) is refused before
    anything is written."""
    if (compressed := run_file(out_dir, DIALOGUES_FILE)).suffix == ".gz":
        raise InputError(compressed, "a compressed run is kept to be read: gunzip it into a folder of its own to go "
                         "on with it")
    made = not out_dir.exists()
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        with _held(out_dir):
            yield
    except BaseException:
        if made and [p.name for p in out_dir.iterdir()] == [LOCK_FILE]:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise


@contextmanager
def _held(out_dir: Path) -> Iterator[None]:
    with (out_dir / LOCK_FILE).open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise SynthError(f"{out_dir}: {holder} is writing to this folder; wait for it to end, or give another "
                             "--out") from None
        except OSError as exc:
            log.warning("%s: cannot lock the folder (%s); a second run on it would not be stopped", out_dir, exc)
            yield
            return
        handle.seek(0)
        handle.truncate()
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        handle.write(f"process {os.getpid()} on {socket.gethostname()} (started {started})")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
