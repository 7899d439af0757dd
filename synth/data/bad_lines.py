"""What a loader does with a bad line: stop with a located error, or (--skip-bad-lines) count a warning."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from synth.errors import InputError

log = logging.getLogger(__name__)


@dataclass
class BadLines:
    """Pass `skip=True` to turn bad lines into counted warnings instead of errors."""

    skip: bool = False
    warnings: list[str] = field(default_factory=list)

    def report(self, error: InputError) -> None:
        """Raise `error`, or record it and go on when skipping."""
        if not self.skip:
            raise error
        self.warnings.append(str(error))
        log.warning("skipped: %s", error)

    @property
    def skipped(self) -> int:
        return len(self.warnings)
