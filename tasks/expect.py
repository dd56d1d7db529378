"""A plan step's page-visible check (`expect:` with `text_present` / `text_absent`), judged the
same way wherever it is judged: by the harness for every policy's trace (the `expect_held`
column) and by the agent when it weighs whether a step had the effect it wanted."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Error as PlaywrightError

from tasks.schema import Expect

# The rendered text of a document: what a person can read (hidden elements excluded).
_TEXT_JS = "() => document.body ? document.body.innerText : ''"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def holds(expect: Expect, page_text: str) -> bool:
    """Whether the check holds on this text (case and spacing ignored)."""
    text = _norm(page_text)
    if expect.text_present is not None and _norm(expect.text_present) not in text:
        return False
    return expect.text_absent is None or _norm(expect.text_absent) not in text


async def page_text(page: Any) -> str:
    """The visible text of the page and of every frame in it (a frame that cannot be read, being
    replaced or cross-process and gone, adds nothing)."""
    parts = []
    for frame in page.frames:
        try:
            text = await frame.evaluate(_TEXT_JS)
        except PlaywrightError:
            text = ""
        parts.append(text)
    return "\n".join(parts)


async def check(page: Any, expect: Expect | None) -> bool | None:
    """None when the step has no page-visible check; else whether it holds now."""
    if expect is None or not expect.checkable:
        return None
    return holds(expect, await page_text(page))
