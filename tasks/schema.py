"""Task file schema: what a grounding task asks, the plan the scripted worker follows, and how
success is judged from server-side state. Targets are described in words, never by selector."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tasks.state_paths import get_path, set_path

ActionName = Literal[
    "click", "type", "select", "set_value", "scroll", "navigate", "back", "wait", "expand",
    "read", "finish", "hover", "drag",
]
# Actions that always name a target. `scroll` names one only when it scrolls inside a container
# (`target`) or until something is in view (`until`): see `Subgoal.targeted`.
TARGETED_ACTIONS = frozenset({"click", "type", "select", "set_value", "expand", "read", "hover", "drag"})
Direction = Literal["up", "down", "left", "right"]


class Expect(BaseModel):
    """What should be true on the page after a step: in words (for a model), and optionally as a
    check any policy's trace can be judged by (visible text present / absent on the page)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    says: str = Field(description="what should be true after the step, in words")
    text_present: str | None = Field(None, description="text that must be visible on the page "
                                                       "(any frame), case and spacing ignored")
    text_absent: str | None = Field(None, description="text that must not be visible on the page")

    @property
    def checkable(self) -> bool:
        return self.text_present is not None or self.text_absent is not None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Subgoal(_Strict):
    """One step of a task's plan, as a person would say it."""

    action: ActionName
    target: str | None = Field(None, description="the element, described in words (never a "
                                                 "selector); for scroll, the container to scroll inside")
    label: str | None = Field(None, description="the visible text the target is expected to show: "
                                                "a target that does not show it is never chosen")
    text: str | None = Field(None, description="type: the text to type; finish: the answer")
    clear: bool = Field(True, description="type: empty the field first")
    then: Literal["enter", "escape", "click_away"] | None = Field(
        None, description="type: what to do after typing")
    value: float | str | None = Field(None, description="select: the option; set_value: the value")
    url: str | None = Field(None, description="navigate: an http(s) URL")
    direction: Direction = Field("down", description="scroll: which way")
    pixels: int = Field(600, ge=1, le=5000, description="scroll: how far per scroll")
    until: str | None = Field(None, description="scroll: repeat until this target, described in "
                                                "words, is in view (the subgoal is done then)")
    to: str | None = Field(None, description="drag: the target to drop on, described in words")
    offset: tuple[float, float] | None = Field(
        None, description="drag: move by (dx, dy) CSS px instead of onto a target")
    seconds: float = Field(0.5, description="wait: how long")
    critical: bool = False
    expect: Expect | None = Field(None, description="what should be true on the page after this step")
    ensure: Literal["checked", "unchecked", "expanded", "collapsed"] | None = Field(
        None, description="the state the target must end in; acting is wrong if it already is")
    nth: int | None = Field(None, ge=1, description="the nth (1 = first) of the targets that fit "
                                                   "the description, in reading order")
    once: bool = Field(False, description="act once even when nothing visible changes: the page "
                                          "may count the action unseen (a click in a sequence)")
    reveal: str | None = Field(None, description="controls that may hide the target (tabs, collapsed "
                                                 "sections, folders): opened one by one until it shows")
    looks_like: str | None = Field(
        None, description="a picture the target shows (an icon the instruction draws): a PNG or "
                          "JPEG file, its path relative to the task file, or a data: URL; the target "
                          "is chosen among the marks that show a picture alike")

    @model_validator(mode="after")
    def _arguments_fit_action(self) -> Subgoal:
        if self.action in TARGETED_ACTIONS and not self.target:
            raise ValueError(f"action {self.action!r} needs a target description")
        if self.action == "type" and self.text is None:
            raise ValueError("action 'type' needs text")
        if self.action in ("select", "set_value") and self.value is None:
            raise ValueError(f"action {self.action!r} needs a value")
        if self.action == "navigate" and urlsplit(self.url or "").scheme not in ("http", "https"):
            raise ValueError("action 'navigate' needs an http(s) url")
        if self.action == "drag" and (self.to is None) == (self.offset is None):
            raise ValueError("action 'drag' needs exactly one of to (a target in words) or offset")
        if self.action != "drag" and (self.to is not None or self.offset is not None):
            raise ValueError("to and offset belong to action 'drag'")
        if self.action != "scroll" and (self.until is not None or "pixels" in self.model_fields_set):
            raise ValueError("until and pixels belong to action 'scroll'")
        if self.action != "scroll" and "direction" in self.model_fields_set:
            raise ValueError("direction belongs to action 'scroll'")
        if self.looks_like is not None and self.action not in TARGETED_ACTIONS:
            raise ValueError(f"looks_like needs a targeted action, not {self.action!r}")
        return self

    @property
    def targeted(self) -> bool:
        """Whether the step needs a target found on the page (a scroll only inside a container or
        until something is in view)."""
        return self.action in TARGETED_ACTIONS or (
            self.action == "scroll" and (self.target is not None or self.until is not None))


OPERATORS = ("equals", "not_equals", "contains", "gte", "lte", "exists")


class Assertion(_Strict):
    """A check on the episode's server state: `path` (a dotted key) with exactly one operator, or
    `state_equals` alone: the whole state must equal that mapping, with no extra keys, so anything
    a trap records (a wrong item, a subscription, a visit) fails the task for good. Its keys may
    be dotted (`cart.items: 1` is `{cart: {items: 1}}`)."""

    path: str | None = Field(None, description="dotted key into the server state, e.g. cart.items")
    equals: Any = None
    not_equals: Any = None
    contains: Any = Field(None, description="a list, string or mapping that contains this")
    gte: float | None = None
    lte: float | None = None
    exists: bool | None = Field(None, description="whether the key is set at all")
    state_equals: dict[str, Any] | None = Field(
        None, description="the whole server state, exactly (no path, no operator)")

    @model_validator(mode="after")
    def _one_operator(self) -> Assertion:
        ops = [k for k in OPERATORS if k in self.model_fields_set]
        if self.state_equals is not None:
            if self.path is not None or ops:
                raise ValueError("state_equals stands alone: no path, no operator")
            return self
        if self.path is None:
            raise ValueError("an assertion needs a path (or state_equals)")
        if len(ops) != 1:
            raise ValueError(f"assertion on {self.path!r} needs exactly one operator, got {ops or 'none'}")
        return self

    @property
    def operator(self) -> str:
        if self.state_equals is not None:
            return "state_equals"
        return next(k for k in OPERATORS if k in self.model_fields_set)

    def expected_state(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in (self.state_equals or {}).items():
            set_path(out, key, value)
        return out


class OracleStep(_Strict):
    """Ground-truth step for the harness-only oracle runner (never shown to agents): plain
    Playwright on a CSS/Playwright selector."""

    do: Literal["click", "fill", "press", "check", "select", "set_value", "goto", "wait_for",
                "hover", "scroll", "drag"] = Field(description=(
        "click (at `position` if given), fill `text`, press `key` (on the element, or the page "
        "without selector), check a checkbox, select the option `value`, set_value (fill "
        "`value`), goto `url`, wait_for the element to be visible, hover, scroll (the element "
        "into view; with `offset`, the wheel over the element by (dx, dy); without selector, the "
        "page by `value` px down), drag the element onto `to` or by `offset`"))
    selector: str | None = Field(None, description="the element (Playwright selector syntax)")
    frames: list[str] = Field(default_factory=list, description="iframe selectors, outermost first")
    text: str | None = Field(None, description="fill: the text")
    key: str | None = Field(None, description="press: the key, e.g. Enter")
    value: float | str | None = Field(None, description="select / set_value: the value; scroll "
                                                        "without selector: pixels")
    url: str | None = Field(None, description="goto: a path on the fixture server or a URL")
    position: tuple[float, float] | None = Field(None, description="fraction of the element's box")
    to: str | None = Field(None, description="drag: the selector to drop on (same frames)")
    offset: tuple[float, float] | None = Field(None, description="drag / scroll: (dx, dy) CSS px")


class UrlGrammar(_Strict):
    """A site's declared URL grammar: a filtered state reachable with one URL instead of clicks."""

    template: str = Field(description="path with {name} placeholders, e.g. /adopt/search.html?species={species}")
    params: dict[str, str] = Field(description="the values this task needs for each placeholder")
    replaces: int = Field(0, ge=0, description="how many leading plan steps the URL stands in for "
                                                "(0: the grammar is declared but not a shortcut)")
    expect: dict[str, str] = Field(default_factory=dict,
                                   description="words the landing page must show (default: params)")


class Task(_Strict):
    """One grounding task: a goal on a start page, the plan a plan follower executes, and how
    success is judged from the episode's server state."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$", description="unique task id")
    version: int = Field(1, description="bump when the task changes meaning (stored in traces)")
    site: str = Field(description="the site folder the task runs on")
    start: str = Field(description="path inside the site, e.g. /shop/index.html")
    goal: str = Field(description="the goal in words, as a user would give it")
    plan: list[Subgoal] = Field(min_length=1, description="the subgoals, in order")
    success: list[Assertion] = Field(
        min_length=1, description="all must hold on the server state when the episode ends")
    max_steps: int = Field(20, ge=1, le=500, description="the episode's step budget")
    tags: list[str] = Field(default_factory=list, description="suites select tasks by tag")
    allowed_domains: list[str] = Field(default_factory=lambda: ["main", "alt"],
                                       description="fixture origins the agent may navigate to")
    naive_trap: str | None = Field(None, description="why naive grounding fails here, if it does")
    oracle: list[OracleStep] = Field(default_factory=list,
                                     description="ground-truth steps for the oracle baseline")
    url_grammar: UrlGrammar | None = Field(None, description="a URL that reaches a filtered state")

    @model_validator(mode="after")
    def _start_in_site(self) -> Task:
        if not self.start.startswith(f"/{self.site}/"):
            raise ValueError(f"start {self.start!r} must be a path under /{self.site}/")
        return self

    def broken(self, state: dict[str, Any]) -> list[str]:
        """What the state holds that no later step should need to undo: each key a success check
        names that is set to a wrong value (a missing key is only not done yet), and under
        `state_equals` each key set that it does not expect."""
        missing = object()
        out = []
        for a in self.success:
            if a.state_equals is not None:
                want, have = _leaves(a.expected_state()), _leaves(state)
                out += [f"{k} = {v!r} (wants {want[k]!r})" if k in want else f"{k} = {v!r} (not expected)"
                        for k, v in have.items() if want.get(k, missing) != v]
                continue
            assert a.path is not None
            got = get_path(state, a.path, missing)
            if got is not missing and a.operator != "exists" and not self._holds(a, got):
                out.append(f"{a.path} = {got!r} (wants {a.operator} {getattr(a, a.operator)!r})")
        return out

    @staticmethod
    def _holds(a: Assertion, got: Any) -> bool:
        op, want = a.operator, getattr(a, a.operator)
        if op == "equals":
            return got == want
        if op == "not_equals":
            return got != want
        if op == "contains":
            return isinstance(got, (list, str, dict)) and want in got
        if op == "gte":
            return isinstance(got, (int, float)) and got >= want
        return isinstance(got, (int, float)) and got <= want

    def check(self, state: dict[str, Any]) -> tuple[bool, list[str]]:
        """All assertions against a server state; returns (passed, failed assertion texts)."""
        missing = object()
        failed = []
        for a in self.success:
            if a.state_equals is not None:
                want_state = a.expected_state()
                if state != want_state:
                    failed.append(f"state equals {want_state!r} (got {state!r})")
                continue
            assert a.path is not None
            got = get_path(state, a.path, missing)
            op = a.operator
            want = getattr(a, op)
            if op == "exists":
                ok = (got is not missing) == want
            else:
                ok = got is not missing and self._holds(a, got)
            if not ok:
                failed.append(f"{a.path} {op} {want!r} (got {None if got is missing else got!r})")
        return not failed, failed


def _leaves(state: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested state as dotted leaf keys: {"cart": {"items": 1}} -> {"cart.items": 1}."""
    out: dict[str, Any] = {}
    for key, value in state.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(_leaves(value, path + "."))
        else:
            out[path] = value
    return out


def json_schema() -> dict[str, Any]:
    """The task file's JSON Schema (for editors: yaml-language-server, VS Code), generated from
    the pydantic model. `python -m tasks.schema > docs/task.schema.json` rewrites the shipped copy."""
    schema = Task.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "groundbench task"
    return schema


if __name__ == "__main__":
    import json

    print(json.dumps(json_schema(), indent=2))
