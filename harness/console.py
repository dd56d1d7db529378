"""The console every command prints to: the terminal's width in a terminal, and no wrapping at all
in a log (a CI job's stdout is no terminal, and Rich would wrap it at 80 columns)."""

from __future__ import annotations

import atexit
import gc
import sys

from rich.console import Console

# Wide enough for any table row; Rich sizes a table to its content, not to this.
LOG_WIDTH = 400


def console(**kwargs: object) -> Console:
    if sys.stdout.isatty():
        return Console(**kwargs)  # type: ignore[arg-type]
    return Console(width=LOG_WIDTH, soft_wrap=True, **kwargs)  # type: ignore[arg-type]


def exit_without_teardown() -> None:
    """At interpreter exit, leave the objects that live until then to the operating system: the
    interpreter's last collection frees every class, function and closure the agent's pydantic
    models and mechanisms built (0.2-0.3 s per command, measured). Files, threads and `atexit`
    work finish first as usual; only the final freeing of memory is skipped. Registered by the
    command-line entry points; it acts only at exit, so a program that calls them keeps its
    collector while it runs."""
    atexit.register(gc.freeze)
