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
    "click-test-transfer": (r"Click button (\S+)\.", "{} button"),
    "unicode-test": (r'Click on the "(.+)" button\.', "{} button"),
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
    # The utterance names the item's ends only: the suggestion is chosen by them.
    steps = [_type("Tags field", m[1])]
    if m[2]:
        steps.append(_click(f'autocomplete suggestion starting with "{m[1]}" and ending in "{m[2]}"'))
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


# --- Wider coverage (#20 item 3): hover, drag and scroll types, forms, menus, dates. ---------

ORDINAL_WORDS = {1: "1st", 2: "2nd", 3: "3rd"}


def _nth_word(n: int) -> str:
    return ORDINAL_WORDS.get(n, f"{n}th")


@plans_for("click-menu")
def click_menu(utterance: str) -> list[Subgoal]:
    m = _match("click-menu", r"Select (\S.*)", utterance)
    path = [p.strip() for p in m[1].split(">")]
    # A submenu opens while the pointer rests on its parent: hover each level, click the last.
    steps = [Subgoal(action="hover", target=f"{p} menu item", label=p) for p in path[:-1]]
    return steps + [_click(f"{path[-1]} menu item", path[-1])]


@plans_for("click-menu-2")
def click_menu_2(utterance: str) -> list[Subgoal]:
    m = _match("click-menu-2", r'Click the "(.+?)" button, and then find and click on the item '
               r'(?:labeled "(.+)"|with the (?:(\[picture \d+\]) )?icon)\.', utterance)
    opener = _click(f"{m[1]} button", m[1])
    if m[2] is None and m[3] is not None:
        # the instruction draws the icon: the item that shows that picture
        return [opener, _click("menu item with the icon", looks_like=m[3])]
    if m[2] is None:
        # the text alone (the picture not read): any item with an icon, the first
        return [opener, _click("menu item with an icon", nth=1)]
    return [opener, _click(f"{m[2]} menu item", m[2])]


@plans_for("enter-date")
def enter_date(utterance: str) -> list[Subgoal]:
    m = _match("enter-date", r"Enter (\d\d/\d\d/\d{4}) as the date and hit submit\.", utterance)
    return [_type("date field", m[1], nth=1), _submit()]


@plans_for("enter-time")
def enter_time(utterance: str) -> list[Subgoal]:
    m = _match("enter-time", r"Enter (\d{1,2}:\d\d [AP]M) as the time and press submit\.", utterance)
    return [_type("time field", m[1], nth=1), _submit()]


@plans_for("form-sequence")
def form_sequence(utterance: str) -> list[Subgoal]:
    m = _match("form-sequence", r"Select (-?\d+) with the slider, click the (\d+(?:st|nd|rd|th)) "
               r"checkbox, then hit Submit\.", utterance)
    return [Subgoal(action="set_value", target="slider", value=int(m[1]), nth=1),
            _click("checkbox", nth=_ordinal(m[2]), ensure="checked"), _submit()]


@plans_for("form-sequence-2")
def form_sequence_2(utterance: str) -> list[Subgoal]:
    m = _match("form-sequence-2", r'Check the (\d+(?:st|nd|rd|th)) radio button and enter the '
               r'number "(.+)" into the (\d+(?:st|nd|rd|th)) textbox\.', utterance)
    # The utterance stops at the number; the page's Submit button ends the episode.
    return [_click("radio button", nth=_ordinal(m[1]), ensure="checked"),
            _type("text box", m[2], nth=_ordinal(m[3])), _submit()]


@plans_for("form-sequence-3")
def form_sequence_3(utterance: str) -> list[Subgoal]:
    m = _match("form-sequence-3", r'Choose (.+) from the dropdown, then click the button labeled '
               r'"(.+)"\.', utterance)
    return [Subgoal(action="select", target="dropdown list", value=m[1], nth=1),
            _click(f"{m[2]} button", m[2])]


@plans_for("multi-layouts", "multi-orderings")
def multi_layouts(utterance: str) -> list[Subgoal]:
    m = _match("multi-layouts", r"Search for (.+) movies directed by (.+) from year (\d{4})\.",
               utterance)
    # The fields are known by the labels beside them, wherever the layout puts them.
    return [_type("Genre field", m[1]), _type("Director field", m[2]), _type("Year field", m[3]),
            _submit()]


@plans_for("sign-agreement")
def sign_agreement(utterance: str) -> list[Subgoal]:
    if utterance == "Click the cancel button.":
        return [_click("Cancel button", "Cancel")]
    m = _match("sign-agreement", r'Scroll to the bottom of the textarea, enter the name "(.+)" then '
               r'press "(.+)"', utterance)
    return [Subgoal(action="scroll", target="user agreement text area", direction="down",
                    pixels=5000),
            _type("Name field", m[1]), _click(f"{m[2]} button", m[2])]


def _drag_to(target: str, label: str | None, to: str) -> Subgoal:
    return Subgoal(action="drag", target=target, label=label, to=to)


# How far "drag it up/down/left/right" moves a shape: well away, yet inside MiniWoB's 160 px area.
DRAG_PX = 40
DIRECTIONS = {"up": (0, -DRAG_PX), "down": (0, DRAG_PX), "left": (-DRAG_PX, 0), "right": (DRAG_PX, 0)}


@plans_for("drag-items")
def drag_items(utterance: str) -> list[Subgoal]:
    m = _match("drag-items", r"Drag (.+?) (?:to the (\d+(?:st|nd|rd|th)) position|(up|down) by one "
               r"position|to the (top|bottom))\.", utterance)
    name = m[1]
    if m[2]:
        to = f"the list item in the {m[2]} position"
    elif m[4]:
        to = f"the {'first' if m[4] == 'top' else 'last'} list item, at the {m[4]} of the list"
    else:
        to = f"the list item just {'below' if m[3] == 'down' else 'above'} {name}"
    return [_drag_to(f"{name} list item", name, to)]


@plans_for("drag-items-grid")
def drag_items_grid(utterance: str) -> list[Subgoal]:
    m = _match("drag-items-grid", r"Drag (.+?) (?:to the ((?:top|center|bottom) (?:left|center|right)|center)"
               r"|(up|down|left|right) by one)\.", utterance)
    name = m[1]
    if m[2]:
        to = f"the grid item at the {m[2]}"
    else:
        side = {"up": "above", "down": "below", "left": "left of", "right": "right of"}[m[3]]
        to = f"the grid item just {side} {name}"
    return [_drag_to(f"{name} grid item", name, to)]


@plans_for("drag-single-shape", "drag-circle")
def drag_shape(utterance: str) -> list[Subgoal]:
    m = _match("drag-single-shape", r"Drag the (item|circle) (up|down|left|right) then press "
               r"Submit\.", utterance)
    what = "shape" if m[1] == "item" else "circle"
    # the one shape of the task area: the first (and only) thing drawn as one
    return [Subgoal(action="drag", target=f"the {what} in the task area", nth=1,
                    offset=DIRECTIONS[m[2]]), _submit()]


@plans_for("email-inbox-delete", "email-inbox-important")
def email_inbox_action(utterance: str) -> list[Subgoal]:
    m = _match("email-inbox-action", r"Find the email by (.+) and click the (trash|star) icon to "
               r"(?:delete it|mark it as important)\.", utterance)
    return [_click(f"email from {m[1]} in the inbox", m[1]), _click(f"{m[2]} icon of the open email")]


@plans_for("use-slider-2")
def use_slider_2(utterance: str) -> list[Subgoal]:
    m = _match("use-slider-2", r"Set the sliders to the combination \[(-?\d+),(-?\d+),(-?\d+)\] and "
               r"submit\.", utterance)
    return [Subgoal(action="set_value", target="slider", value=int(v), nth=i)
            for i, v in enumerate(m.groups(), start=1)] + [_submit()]


# --- Types MiniWoB marks nondeterministic (suite miniwob_nondeterministic). ---------------------

@plans_for("click-scroll-list")
def click_scroll_list(utterance: str) -> list[Subgoal]:
    m = _match("click-scroll-list", r"Select (.+) from the scroll list and click Submit\.", utterance)
    # The page joins the items it asks for with ", "; selecting a second item of the multiple
    # list keeps the first only with the control key held, which the plan cannot say.
    names = [n.strip() for n in m[1].split(", ")]
    steps: list[Subgoal] = []
    for name in names:
        steps.append(Subgoal(action="scroll", target="scroll list", until=f"{name} option"))
        steps.append(_click(f"{name} option in the scroll list", name))
    return steps + [_submit()]


# jQuery UI's datepicker opens on the latest month it allows, December 2016 in these pages.
DATEPICKER_OPENS_ON = 12


@plans_for("choose-date", "choose-date-easy", "choose-date-medium", "choose-date-nodelay")
def choose_date(utterance: str) -> list[Subgoal]:
    m = _match("choose-date", r"Select (\d\d)/(\d\d)/(\d{4}) as the date and hit submit\.", utterance)
    month, day = int(m[1]), int(m[2])
    back = max(0, DATEPICKER_OPENS_ON - month)
    # Each "Prev" turns the calendar one month back: the page counts every click.
    return ([_click("Date field", nth=1)]
            + [_click("Prev month link", "Prev", once=True) for _ in range(back)]
            + [_click(f"day {day} in the calendar", str(day)), _submit()])


@plans_for("scroll-text-2")
def scroll_text_2(utterance: str) -> list[Subgoal]:
    m = _match("scroll-text-2", r"Scroll the textarea to the (bottom|top) of the text hit submit\.",
               utterance)
    return [Subgoal(action="scroll", target="text area", direction="down" if m[1] == "bottom" else "up",
                    pixels=5000), _submit()]


@plans_for("phone-book")
def phone_book(utterance: str) -> list[Subgoal]:
    m = _match("phone-book", r"Find (.+) in the contact book and click on their (address|email|phone "
               r"number)\.", utterance)
    return [_click(f"{m[2]} link of the contact {m[1]}", reveal="page number link of the contact book")]


@plans_for("click-pie", "click-pie-nodelay")
def click_pie(utterance: str) -> list[Subgoal]:
    m = _match("click-pie", r'Expand the pie menu below and click on the item labeled "(.+)"\.',
               utterance)
    # The closed pie menu shows one "+" at its centre.
    return [Subgoal(action="expand", target="pie menu button", label="+"),
            _click(f"{m[1]} item of the pie menu", m[1])]


@plans_for("social-media")
def social_media(utterance: str) -> list[Subgoal]:
    m = _match("social-media", r'For the user (@\S+), click on the "(.+)" button\.', utterance)
    return [_click(f"more options icon of the post by {m[1]}"),
            _click(f"{m[2]} menu item", m[2])]
