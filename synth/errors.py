"""User-facing errors: the CLI prints them as one line and exits with code 2."""


class SynthError(Exception):
    """A problem the user can fix (bad input, missing model, unreachable server)."""


class InputError(SynthError):
    """Bad input data, located by file, line and field."""

    def __init__(self, path: object, message: str, *, line: int | None = None, field: str | None = None):
        where = str(path)
        if line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field '{field}'"
        super().__init__(f"{where}: {message}")
        self.path, self.line, self.field, self.message = path, line, field, message
