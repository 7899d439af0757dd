"""The Jinja environment of a package's HTML page templates (the run report's, the rating pages'): autoescaped,
strict about undefined names, block tags trimmed."""

from __future__ import annotations

import jinja2


def page_environment(package: str) -> jinja2.Environment:
    """The environment that loads `package`'s templates/ folder."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
