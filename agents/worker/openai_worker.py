"""Choose stage, `openai` worker: a language model sees the Set-of-Mark screenshot and the numbered
listing and answers ONE action from the closed vocabulary as JSON, naming a mark by number
(`decide`, the worker interface; `ask` is the same call with its parts spelled out).

A reply that is not JSON, not a valid `WorkerReply`, or that names a mark outside the current
listing is counted (`WorkerCost.invalid_replies`) and re-asked with the validation error appended,
until `max_invalid_replies` invalid replies have been seen: then `ask` returns
`(None, cost)` with `error_type == "invalid_reply"`. A failed call returns `(None, cost)` with the
client's error kind (http_error, timeout, connection, bad_response). Tokens and latency are summed
over every call of one decision. Marks are valid for the listing they came with only: the worker
checks numbers against `marks` as passed, never against an earlier step.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agents.actions import web_url
from agents.marks import Mark
from agents.openai_client import (
    ModelCallError,
    OpenAIClient,
    OpenAIClientConfig,
    extract_json,
    image_part,
    json_error,
    record_model_call,
    text_part,
)
from agents.worker.base import Choice, ChoiceRequest, WorkerCost, WorkerReply
from tasks.schema import TARGETED_ACTIONS, Subgoal

_MAX_ERROR = 300
REPLY_KEYS = ("action", "mark", "point", "text", "clear", "then", "value", "url", "direction",
              "to_mark", "offset", "answer", "reason")

_SYSTEM = """\
You operate a web browser for a user, one action at a time. You see a screenshot of the viewport
in which every interactive element has a numbered box (a mark), and a listing with the same
numbers: mark N in the picture and [N] in the listing are the same element. The numbers are valid
for this screenshot only.

Reply with ONE JSON object and nothing else, e.g. {{"action": "click", "mark": 3, "reason": "opens the search"}}

Actions (a closed vocabulary: nothing else can be done):
- click: {{"action": "click", "mark": N}}
- type: {{"action": "type", "mark": N, "text": "...", "clear": true, "then": "enter"}}
  clear=true replaces the field's current value, false appends to it; then is what follows the
  typing: "enter" (submit), "escape" (dismiss suggestions), "click_away" (blur), or null.
- select: {{"action": "select", "mark": N, "value": "option text"}}
- set_value: {{"action": "set_value", "mark": N, "value": 42}}  (sliders, number fields)
- expand: {{"action": "expand", "mark": N}}  (open a collapsed section, menu or dropdown)
- read: {{"action": "read", "mark": N}}  (read a region's full text)
- hover: {{"action": "hover", "mark": N}}  (rest the pointer on it: menus that open on hover)
- drag: {{"action": "drag", "mark": N, "to_mark": M}}  (or "offset": [dx, dy] in CSS pixels)
- scroll: {{"action": "scroll", "direction": "down"}}  ("up", "left", "right"; with "mark": N the
  wheel turns over that element, so the list or strip it sits in scrolls, not the page)
- navigate: {{"action": "navigate", "url": "https://..."}}
- back: {{"action": "back"}}
- wait: {{"action": "wait"}}
- finish: {{"action": "finish", "answer": "..."}}  (the goal is done, or cannot be done: say why)

Rules:
- "mark" must be one of the numbers in the current listing.
{point_rule}- Allowed keys: {keys}. "reason" is one short sentence."""

_POINT_RULE = """\
- Only when the element you need is visible but has no mark, give "point": [x, y] instead of
  "mark": fractions 0..1 of the image width and height, origin top-left (a degraded fallback).
"""


class InvalidReply(ValueError):
    """A model reply that cannot be executed against the current listing; the message is meant
    for the model (it is appended to the re-ask)."""


class OpenAIWorkerConfig(BaseModel):
    """Hydra's `worker` group when `worker=openai` (see conf/worker/openai.yaml)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["openai"] = "openai"
    client: OpenAIClientConfig = OpenAIClientConfig()
    max_invalid_replies: int = Field(3, ge=1, description="give up after this many invalid replies "
                                     "in one decision (so at most this many model calls)")
    history_limit: int = Field(8, ge=0, description="most recent history lines shown")
    allow_point: bool = Field(True, description="accept the degraded coordinate fallback")
    detail: Literal["auto", "low", "high"] | None = Field(None, description="image_url detail")
    preflight: bool = Field(True, description="one request to the model before the run starts a "
                            "browser; a failure stops the run (exit 2)")


def system_prompt(allow_point: bool) -> str:
    keys = ", ".join(k for k in REPLY_KEYS if allow_point or k != "point")
    return _SYSTEM.format(point_rule=_POINT_RULE if allow_point else "", keys=keys)


def describe_subgoal(subgoal: Subgoal) -> str:
    parts = [subgoal.action]
    if subgoal.target:
        parts.append(f"the {subgoal.target}" if not subgoal.target.lower().startswith("the ")
                     else subgoal.target)
    if subgoal.label:
        parts.append(f'(shows "{subgoal.label}")')
    if subgoal.looks_like:
        parts.append("(shows the picture given after the screenshot)")
    if subgoal.text is not None:
        parts.append(f'text "{subgoal.text}" (clear={str(subgoal.clear).lower()}, '
                     f"then={subgoal.then or 'null'})")
    if subgoal.value is not None:
        parts.append(f"value {subgoal.value!r}")
    if subgoal.url:
        parts.append(f"url {subgoal.url}")
    if subgoal.action == "scroll":
        parts.append(subgoal.direction)
        if subgoal.until:
            parts.append(f"until the {subgoal.until} is in view")
    if subgoal.to:
        parts.append(f"onto the {subgoal.to}")
    if subgoal.offset:
        parts.append(f"by {subgoal.offset[0]:+g}, {subgoal.offset[1]:+g} px")
    if subgoal.expect:
        parts.append(f"(afterwards: {subgoal.expect.says})")
    ensure = getattr(subgoal, "ensure", None)
    if ensure:
        parts.append(f"(it must end {ensure}; if it already is, do not act on it)")
    return " ".join(parts)


def build_messages(goal: str, subgoal: Subgoal | None, marks: list[Mark], som_png: bytes,
                   history: list[str], config: OpenAIWorkerConfig) -> list[dict[str, Any]]:
    lines = [f"Goal: {goal.strip()}"]
    if subgoal is not None:
        lines.append(f"Current subgoal: {describe_subgoal(subgoal)}")
    else:
        lines.append("No subgoal is given: decide the next step towards the goal yourself.")
    recent = history[-config.history_limit:] if config.history_limit else []
    if recent:
        lines.append("Recent actions, oldest first:")
        lines.extend(f"- {h}" for h in recent)
    lines.append("Marks in the current screenshot:")
    lines.extend(m.listing_line() for m in marks)
    if not marks:
        lines.append("(none: no interactive element was found in view)")
    lines.append("The screenshot with the marks follows. Answer with one JSON action.")
    content = [text_part("\n".join(lines)), image_part(som_png, config.detail)]
    if subgoal is not None and subgoal.looks_like:
        from agents import pictures  # numpy: only for a subgoal that gives a picture

        try:
            content += [text_part("The picture the target shows:"),
                        image_part(pictures.png(subgoal.looks_like), config.detail)]
        except pictures.PictureError as exc:  # recorded by the choose stage; the listing still goes
            content.append(text_part(f"(The picture the target shows could not be read: {exc})"))
    return [
        {"role": "system", "content": system_prompt(config.allow_point)},
        {"role": "user", "content": content},
    ]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR else text[: _MAX_ERROR - 3] + "..."


def _numbers(marks: list[Mark]) -> str:
    nums = sorted({m.number for m in marks})
    if not nums:
        return "none"
    if nums == list(range(nums[0], nums[-1] + 1)) and len(nums) > 2:
        return f"{nums[0]}-{nums[-1]}"
    shown = ", ".join(str(n) for n in nums[:30])
    return shown + (", ..." if len(nums) > 30 else "")


def check_reply(content: str, marks: list[Mark], allow_point: bool = True) -> WorkerReply:
    """The model's text → a WorkerReply that can be executed against this listing; raises
    InvalidReply with a message meant for the model."""
    try:
        data = extract_json(content)
    except ValueError as e:
        raise InvalidReply(str(e)) from None
    if not isinstance(data, dict):
        raise InvalidReply(f"expected one JSON object, got a JSON {type(data).__name__}")
    data = {k: v for k, v in data.items() if v is not None}  # null means "not given"
    try:
        reply = WorkerReply.model_validate(data)
    except ValidationError as e:
        problems = []
        for err in e.errors()[:3]:
            where = ".".join(str(p) for p in err.get("loc", ())) or "reply"
            problems.append(f"{where}: {err.get('msg', 'invalid')}")
        raise InvalidReply("; ".join(problems)) from None
    valid = {m.number for m in marks}
    if reply.mark is not None and reply.mark not in valid:
        raise InvalidReply(f"mark {reply.mark} is not in the current listing (valid marks: "
                         f"{_numbers(marks)})")
    if reply.point is not None:
        if not allow_point:
            raise InvalidReply('"point" is not allowed: name a mark from the listing')
        if not all(0 <= v <= 1 for v in reply.point):
            raise InvalidReply(f"point {list(reply.point)} must be fractions 0..1 of the image")
    if reply.action in TARGETED_ACTIONS and reply.mark is None and reply.point is None:
        raise InvalidReply(f'action "{reply.action}" needs a "mark" from the listing'
                         + (' (or a "point" if no mark covers the element)' if allow_point else ""))
    if reply.action == "type" and reply.text is None:
        raise InvalidReply('action "type" needs "text"')
    if reply.action in ("select", "set_value") and reply.value is None:
        raise InvalidReply(f'action "{reply.action}" needs "value"')
    if reply.action == "navigate" and not web_url(reply.url):
        raise InvalidReply('action "navigate" needs an http(s) "url"')
    if reply.to_mark is not None and reply.to_mark not in valid:
        raise InvalidReply(f"to_mark {reply.to_mark} is not in the current listing")
    if reply.action == "drag" and (reply.to_mark is None) == (reply.offset is None):
        raise InvalidReply('action "drag" needs exactly one of "to_mark" or "offset"')
    return reply


class OpenAIWorker:
    """Chooses one action per step with an OpenAI-compatible chat model (see module docstring)."""

    name = "openai"
    sees_image = True

    def __init__(self, config: OpenAIWorkerConfig | None = None,
                 client: OpenAIClient | None = None) -> None:
        self.config = config or OpenAIWorkerConfig()
        self.client = client or OpenAIClient(self.config.client)

    async def decide(self, request: ChoiceRequest) -> Choice:
        """One action for this listing; `Choice.reply` is None when the model failed (the cost
        says why). The mark a reply names is looked up in this request's listing only."""
        listing = [*request.marks, *request.places]  # a drag may drop on a list item, a row...
        reply, cost = await self.ask(request.goal, request.subgoal, listing,
                                     request.image or b"", request.history)
        by_number = {m.number: m for m in listing}
        mark = by_number.get(reply.mark) if reply is not None and reply.mark is not None else None
        to = by_number.get(reply.to_mark) if reply is not None and reply.to_mark is not None else None
        return Choice(reply, mark, cost=cost, to=to)

    async def ask(self, goal: str, subgoal: Subgoal | None, marks: list[Mark], som_png: bytes,
                  history: list[str]) -> tuple[WorkerReply | None, WorkerCost]:
        t0 = time.perf_counter()
        tokens_in = tokens_out = invalid = 0

        def cost(**kw: Any) -> WorkerCost:
            return WorkerCost(latency_ms=round((time.perf_counter() - t0) * 1000, 2),
                              tokens_in=tokens_in, tokens_out=tokens_out, invalid_replies=invalid,
                              **kw)

        try:
            messages = build_messages(goal, subgoal, marks, som_png, history, self.config)
            while True:
                try:
                    reply = await self.client.chat(messages)
                except ModelCallError as e:
                    record_model_call(str(e))
                    return None, cost(error_type=e.kind, error=_short(e.message))
                record_model_call(json_error(reply.content))
                tokens_in += reply.cost.tokens_in
                tokens_out += reply.cost.tokens_out
                try:
                    return check_reply(reply.content, marks, self.config.allow_point), cost()
                except InvalidReply as e:
                    problem = _short(str(e))
                invalid += 1
                if invalid >= self.config.max_invalid_replies:
                    return None, cost(error_type="invalid_reply",
                                      error=f"{invalid} invalid replies; last: {problem}")
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply.content},
                    {"role": "user", "content": f"That reply is invalid: {problem}. Answer again "
                     "with one JSON object for one action, using a mark number from the current "
                     "listing."},
                ]
        except Exception as e:  # noqa: BLE001 - a worker reports, it never crashes the episode
            return None, cost(error_type="internal", error=_short(f"{type(e).__name__}: {e}"))
