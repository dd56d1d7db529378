"""The console every command prints to: the terminal's width in a terminal, and no wrapping at all
in a log (a CI job's stdout is no terminal, and Rich would wrap it at 80 columns)."""

from __future__ import annotations

import sys

from rich.console import Console

# Wide enough for any table row; Rich sizes a table to its content, not to this.
LOG_WIDTH = 400


def console(**kwargs: object) -> Console:
    if sys.stdout.isatty():
        return Console(**kwargs)  # type: ignore[arg-type]
    return Console(width=LOG_WIDTH, soft_wrap=True, **kwargs)  # type: ignore[arg-type]
