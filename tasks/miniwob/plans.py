"""Plan builders: one small function per MiniWoB++ task type that turns the utterance the page
shows into subgoals for the scripted worker. They read the utterance string only, never the
page's internals, so the answer the page holds stays hidden from the agent."""

from __future__ import annotations

import re
from collections.abc import Callable

from tasks.schema import Subgoal

PlanBuilder = Callable[[str], list[Subgoal]]
PLAN_BUILDERS: dict[str, PlanBuilder] = {}


class UtteranceError(ValueError):
    """An utterance the task type's plan builder does not recognise."""

    def __init__(self, task_type: str, utterance: str, expected: str) -> None:
        self.task_type, self.utterance = task_type, utterance
        super().__init__(f"{task_type}: cannot plan from utterance {utterance!r} "
                         f"(expected {expected})")


def plans_for(*task_types: str) -> Callable[[PlanBuilder], PlanBuilder]:
    def register(builder: PlanBuilder) -> PlanBuilder:
        for name in task_types:
            if name in PLAN_BUILDERS:
                raise ValueError(f"two plan builders for MiniWoB task type {name!r}")
            PLAN_BUILDERS[name] = builder
        return builder
    return register


def build_plan(task_type: str, utterance: str) -> list[Subgoal]:
    """The subgoals for one episode of a task type, from the utterance alone."""
    if task_type not in PLAN_BUILDERS:
        raise KeyError(f"no plan builder for MiniWoB task type {task_type!r}")
    return PLAN_BUILDERS[task_type](" ".join(utterance.split()))


def _match(task_type: str, pattern: str, utterance: str) -> re.Match[str]:
    m = re.fullmatch(pattern, utterance)
    if m is None:
        raise UtteranceError(task_type, utterance, f"/{pattern}/")
    return m


def _click(target: str, label: str | None = None, **extra: object) -> Subgoal:
    return Subgoal.model_validate({"action": "click", "target": target, "label": label, **extra})


def _submit(label: str = "Submit") -> Subgoal:
    return _click(f"{label} button", label)


def _ordinal(word: str) -> int:
    return int(re.match(r"\d+", word).group(0))  # type: ignore[union-attr]


# Task types whose whole plan is one click on the control that shows the quoted words:
# (utterance pattern with the label as its group, target description with {} for the label).
LABELLED_CLICKS = {
    "click-button": (r'Click on the "(.+)" button\.', "{} button"),
    "click-test-2": (r"Click button (\S+)\.", "{} button"),
    "click-link": (r'Click on the link "(.+)"\.', "{} link"),
    "click-tab": (r"Click on (Tab #\d+)\.", "{}"),
}


def _labelled_click(task_type: str, pattern: str, target: str) -> PlanBuilder:
    def build(utterance: str) -> list[Subgoal]:
        label = _match(task_type, pattern, utterance)[1]
        return [_click(target.format(label), label)]
    return build


for _name, (_pattern, _target) in LABELLED_CLICKS.items():
    plans_for(_name)(_labelled_click(_name, _pattern, _target))


@plans_for("click-button-sequence")
def click_button_sequence(utterance: str) -> list[Subgoal]:
    m = _match("click-button-sequence", r"Click button (\S+), then click button (\S+)\.", utterance)
    # The page counts the first click without showing it: a retry would count twice.
    return [_click(f"{m[1]} button", m[1], once=True), _click(f"{m[2]} button", m[2])]


@plans_for("click-test")
def click_test(utterance: str) -> list[Subgoal]:
    _match("click-test", r"Click the button\.", utterance)
    return [_click("the only button on the page", nth=1)]


@plans_for("click-checkboxes", "click-checkboxes-large", "click-checkboxes-transfer")
def click_checkboxes(utterance: str) -> list[Subgoal]:
    m = _match("click-checkboxes", r"Select (.+) and click Submit\.", utterance)
    names = [] if m[1] == "nothing" else [n.strip() for n in m[1].split(",")]
    return [_click(f"{name} checkbox", name, ensure="checked") for name in names] + [_submit()]


@plans_for("click-option")
def click_option(utterance: str) -> list[Subgoal]:
    m = _match("click-option", r"Select (\S+) and click Submit\.", utterance)
    return [_click(f"{m[1]} radio option", m[1], ensure="checked"), _submit()]


@plans_for("click-collapsible", "click-collapsible-nodelay")
def click_collapsible(utterance: str) -> list[Subgoal]:
    _match("click-collapsible", r"Expand the section below and click submit\.", utterance)
    return [Subgoal(action="expand", target="collapsed section header", label="Section",
                    ensure="expanded"), _submit()]


@plans_for("click-collapsible-2", "click-collapsible-2-nodelay")
def click_collapsible_2(utterance: str) -> list[Subgoal]:
    m = _match("click-collapsible-2",
               r'Expand the sections below, to find and click on the link "(.+)"\.', utterance)
    return [_click(f"{m[1]} link", m[1], reveal="tab of a collapsed section")]


@plans_for("click-dialog")
def click_dialog(utterance: str) -> list[Subgoal]:
    _match("click-dialog", r'Close the dialog box by clicking the "x"\.', utterance)
    return [_click("x close button of the dialog box")]


@plans_for("click-dialog-2")
def click_dialog_2(utterance: str) -> list[Subgoal]:
    m = _match("click-dialog-2", r'Click the button in the dialog box labeled "(.+)"\.', utterance)
    if m[1].lower() == "x":
        return [_click("x close button of the dialog box")]
    return [_click(f"{m[1]} button in the dialog box", m[1])]


@plans_for("click-tab-2", "click-tab-2-easy", "click-tab-2-medium", "click-tab-2-hard")
def click_tab_2(utterance: str) -> list[Subgoal]:
    m = _match("click-tab-2", r'Switch between the tabs to find and click on the link "(.+)"\.',
               utterance)
    return [_click(f"{m[1]} link", m[1], reveal="link to a tab")]


WIDGETS = {"button": "button", "checkbox": "checkbox", "radio": "radio button",
           "text": "text input field", "textarea": "multi-line text area field"}


@plans_for("click-widget")
def click_widget(utterance: str) -> list[Subgoal]:
    m = _match("click-widget", r'Click on a "(\w+)" widget\.', utterance)
    if m[1] not in WIDGETS:
        raise UtteranceError("click-widget", utterance, f"a widget among {sorted(WIDGETS)}")
    return [_click(WIDGETS[m[1]], nth=1)]


def _type(target: str, text: str, **extra: object) -> Subgoal:
    return Subgoal.model_validate({"action": "type", "target": target, "text": text, **extra})


@plans_for("enter-password")
def enter_password(utterance: str) -> list[Subgoal]:
    m = _match("enter-password",
               r'Enter the password "(.+)" into both text fields and press submit\.', utterance)
    return [_type("Password field", m[1], nth=1), _type("Verify password field", m[1], nth=2),
            _submit()]


@plans_for("enter-text", "enter-text-dynamic")
def enter_text(utterance: str) -> list[Subgoal]:
    m = _match("enter-text", r'Enter "(.+)" into the text field and press Submit\.', utterance)
    return [_type("text field", m[1], nth=1), _submit()]


@plans_for("enter-text-2")
def enter_text_2(utterance: str) -> list[Subgoal]:
    m = _match("enter-text-2", r'Type "(.+)" in all (lower|upper) case letters in the text input '
               r"and press Submit\.", utterance)
    text = m[1].lower() if m[2] == "lower" else m[1].upper()
    return [_type("text input field", text, nth=1), _submit()]


@plans_for("focus-text")
def focus_text(utterance: str) -> list[Subgoal]:
    _match("focus-text", r"Focus into the textbox\.", utterance)
    return [_click("text box", nth=1)]


@plans_for("focus-text-2")
def focus_text_2(utterance: str) -> list[Subgoal]:
    m = _match("focus-text-2", r"Focus into the (\d+(?:st|nd|rd|th)) input textbox\.", utterance)
    return [_click("input text box", nth=_ordinal(m[1]))]


@plans_for("login-user", "login-user-popup")
def login_user(utterance: str) -> list[Subgoal]:
    m = _match("login-user", r'Enter the username "(.+)" and the password "(.+)" into the text '
               r"fields and press login\.", utterance)
    return [_type("Username field", m[1]), _type("Password field", m[2]),
            _click("login button")]


@plans_for("choose-list")
def choose_list(utterance: str) -> list[Subgoal]:
    m = _match("choose-list", r"Select (.+) from the list and click Submit\.", utterance)
    return [Subgoal(action="select", target="dropdown list", value=m[1], nth=1), _submit()]


@plans_for("use-autocomplete", "use-autocomplete-nodelay")
def use_autocomplete(utterance: str) -> list[Subgoal]:
    m = _match("use-autocomplete",
               r'Enter an item that starts with "(.+?)"(?: and ends with "(.+)")?\.', utterance)
    # The utterance names the item's ends only; the first suggestion for the prefix is the pick
    # a plan fixed in advance can make (it fits "ends with" only when it happens to).
    steps = [_type("Tags field", m[1])]
    if m[2]:
        steps.append(_click(f"autocomplete suggestion ending in {m[2]}", nth=1))
    return steps + [_submit()]


@plans_for("use-slider")
def use_slider(utterance: str) -> list[Subgoal]:
    m = _match("use-slider", r"Select (-?\d+) with the slider and hit Submit\.", utterance)
    return [Subgoal(action="set_value", target="slider", value=int(m[1]), nth=1), _submit()]


@plans_for("use-spinner")
def use_spinner(utterance: str) -> list[Subgoal]:
    m = _match("use-spinner", r"Select (-?\d+) with the spinner and hit Submit\.", utterance)
    return [Subgoal(action="set_value", target="spinner number field", value=int(m[1]), nth=1),
            _submit()]


@plans_for("navigate-tree")
def navigate_tree(utterance: str) -> list[Subgoal]:
    m = _match("navigate-tree", r'Navigate through the file tree\. Find and click on the folder or '
               r'file named "(.+)"\.', utterance)
    # Folders and files are unnamed list items that differ only by their icon, and clicking a
    # wrong file ends the episode: the plan clicks the name where it shows, opening nothing.
    return [_click(f"{m[1]} file or folder", m[1])]


# The search engine shows its results three to a page, with page links below them.
RESULTS_PER_PAGE = 3


@plans_for("search-engine")
def search_engine(utterance: str) -> list[Subgoal]:
    m = _match("search-engine", r'Use the textbox to enter "(.+)" and press "Search", then find '
               r"and click the (\d+(?:st|nd|rd|th)) search result\.", utterance)
    page = (_ordinal(m[2]) - 1) // RESULTS_PER_PAGE + 1
    steps = [_type("search text box", m[1], nth=1), _click("Search button", "Search")]
    if page > 1:
        steps.append(_click(f"page {page} link", str(page)))
    return steps + [_click(f"{m[1]} search result link", m[1])]
