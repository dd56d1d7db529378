"""Task file schema: what a grounding task asks, the plan the scripted worker follows, and how
success is judged from server-side state. Targets are described in words, never by selector."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tasks.state_paths import get_path

ActionName = Literal[
    "click", "type", "select", "set_value", "scroll", "navigate", "back", "wait", "expand",
    "read", "finish",
]
TARGETED_ACTIONS = frozenset({"click", "type", "select", "set_value", "expand", "read"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Subgoal(_Strict):
    """One step of a task's plan, as a person would say it."""

    action: ActionName
    target: str | None = Field(None, description="the element, described in words (never a selector)")
    label: str | None = Field(None, description="the visible text the target is expected to show")
    text: str | None = None
    clear: bool = True
    then: Literal["enter", "escape", "click_away"] | None = None
    value: float | str | None = None
    url: str | None = None
    direction: Literal["up", "down"] = "down"
    seconds: float = 0.5
    critical: bool = False
    ensure: Literal["checked", "unchecked", "expanded", "collapsed"] | None = Field(
        None, description="the state the target must end in; acting is wrong if it already is")
    nth: int | None = Field(None, ge=1, description="the nth (1 = first) of the targets that fit "
                                                   "the description, in reading order")
    once: bool = Field(False, description="act once even when nothing visible changes: the page "
                                          "may count the action unseen (a click in a sequence)")
    reveal: str | None = Field(None, description="controls that may hide the target (tabs, collapsed "
                                                 "sections, folders): opened one by one until it shows")

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
        return self


class Assertion(_Strict):
    """A check on the episode's server state: `path` is a dotted key; exactly one operator is set."""

    path: str
    equals: Any = None
    not_equals: Any = None
    contains: Any = None
    gte: float | None = None
    lte: float | None = None
    exists: bool | None = None

    @model_validator(mode="after")
    def _one_operator(self) -> Assertion:
        ops = [k for k in ("equals", "not_equals", "contains", "gte", "lte", "exists")
               if k in self.model_fields_set]
        if len(ops) != 1:
            raise ValueError(f"assertion on {self.path!r} needs exactly one operator, got {ops or 'none'}")
        return self

    @property
    def operator(self) -> str:
        return next(k for k in ("equals", "not_equals", "contains", "gte", "lte", "exists")
                    if k in self.model_fields_set)


class OracleStep(_Strict):
    """Ground-truth step for the harness-only oracle runner (never shown to agents)."""

    do: Literal["click", "fill", "press", "check", "select", "set_value", "goto", "wait_for",
                "hover", "scroll"]
    selector: str | None = None
    frames: list[str] = Field(default_factory=list, description="iframe selectors, outermost first")
    text: str | None = None
    key: str | None = None
    value: float | str | None = None
    url: str | None = None
    position: tuple[float, float] | None = Field(None, description="fraction of the element's box")


class UrlGrammar(_Strict):
    """A site's declared URL grammar: a filtered state reachable with one URL instead of clicks."""

    template: str = Field(description="path with {name} placeholders, e.g. /adopt/search.html?species={species}")
    params: dict[str, str] = Field(description="the values this task needs for each placeholder")
    replaces: int = Field(0, ge=0, description="how many leading plan steps the URL stands in for "
                                                "(0: the grammar is declared but not a shortcut)")
    expect: dict[str, str] = Field(default_factory=dict,
                                   description="words the landing page must show (default: params)")


class Task(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    version: int = 1
    site: str
    start: str = Field(description="path inside the site, e.g. /shop/index.html")
    goal: str
    plan: list[Subgoal] = Field(min_length=1)
    success: list[Assertion] = Field(min_length=1)
    max_steps: int = Field(20, ge=1, le=500)
    tags: list[str] = Field(default_factory=list)
    allowed_domains: list[str] = Field(default_factory=lambda: ["main", "alt"])
    naive_trap: str | None = Field(None, description="why naive grounding fails here, if it does")
    oracle: list[OracleStep] = Field(default_factory=list)
    url_grammar: UrlGrammar | None = None

    @model_validator(mode="after")
    def _start_in_site(self) -> Task:
        if not self.start.startswith(f"/{self.site}/"):
            raise ValueError(f"start {self.start!r} must be a path under /{self.site}/")
        return self

    def check(self, state: dict[str, Any]) -> tuple[bool, list[str]]:
        """All assertions against a server state; returns (passed, failed assertion texts)."""
        missing = object()
        failed = []
        for a in self.success:
            got = get_path(state, a.path, missing)
            op = a.operator
            want = getattr(a, op)
            if op == "exists":
                ok = (got is not missing) == want
            elif got is missing:
                ok = False
            elif op == "equals":
                ok = got == want
            elif op == "not_equals":
                ok = got != want
            elif op == "contains":
                ok = isinstance(got, (list, str, dict)) and want in got
            elif op == "gte":
                ok = isinstance(got, (int, float)) and got >= want
            else:
                ok = isinstance(got, (int, float)) and got <= want
            if not ok:
                failed.append(f"{a.path} {op} {want!r} (got {None if got is missing else got!r})")
        return not failed, failed
