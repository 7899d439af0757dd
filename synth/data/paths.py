"""Where the shared public datasets live: $SYNTH_SHARED_DATA, else ../shared/data."""

from __future__ import annotations

import os
from pathlib import Path


def shared_data_root() -> Path:
    return Path(os.environ.get("SYNTH_SHARED_DATA", "../shared/data")).expanduser()
