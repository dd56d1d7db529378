"""Each grounding mechanism, switched off and on, on the fixture case that targets it: the switch
changes success or the trace column it owns (and a switch that is off leaves no trace at all)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import async_playwright

from agents.agent import AgentConfig
from agents.dead_action_guard import DeadActionGuard
from agents.marks import Mark, TargetIdentity
from agents.observation import Box
from agents.perceive import vision_call
from agents.perception.synthetic import SyntheticBackend, SyntheticConfig
from agents.perception.visible_geometry import read_regions
from agents.pipeline import Episode, Step
from agents.settle import Settler
from agents.worker.scripted import ScriptedWorker
from harness.browser import BrowserSettings, launch
from tasks.schema import Subgoal
from tasks.trace import StepRecord

pytestmark = pytest.mark.browser


def run(tmp_path: Path, tasks: str, seeds: str, *overrides: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    name = "-".join(o.replace("agent.", "").replace("=", "") for o in overrides) or "full"
    result = run_experiment(tmp_path / name, ["suite=fixtures", f"suite.ids=[{tasks}]", f"seeds=[{seeds}]",
                                              "perception=synthetic", "trace.playwright=false", *overrides])
    return result.episodes, pd.read_parquet(result.run_dir / "steps.parquet")


@pytest.mark.parametrize(("switch", "tasks"), [
    ("snapping", "iframes-delivery,iframes-gift-nested,crosspay-pay,checkout-iframe-pay,canvas-seat-d7"),
    ("enrichment", "settings-email-on,settings-privacy-friends"),
])
def test_switch_off_fails_its_fixtures(tmp_path: Path, switch: str, tasks: str) -> None:
    on, on_steps = run(tmp_path, tasks, "0,1")
    # Without enrichment the agent does not know the Privacy section is open and "expands" it
    # shut; `sections` then opens it again for the radio button it holds, which is what it is
    # for, so it is off here to show what enrichment alone prevents.
    also = ["agent.sections=false"] if switch == "enrichment" else []
    off, off_steps = run(tmp_path, tasks, "0,1", f"agent.{switch}=false", *also)
    assert on.success.all(), on[~on.success][["task_id", "seed", "failure", "failure_detail"]]
    assert not off.success.any(), off[off.success][["task_id", "seed"]]
    if switch == "snapping":
        assert {"same_origin_frame", "cross_origin_frame", "degraded_point"} <= set(on_steps.route)
        assert set(off_steps.route) <= {"", "top"} and not off_steps.degraded.any()
    else:
        assert on_steps.skipped_satisfied.any() and not off_steps.skipped_satisfied.any()
        assert (off_steps.target_role == "").all()  # no DOM semantics reach the worker


def test_compound_split_reaches_the_chevron(tmp_path: Path) -> None:
    on, on_steps = run(tmp_path, "filters-region-canada,shop-region-filter", "0,1,2,3")
    off, off_steps = run(tmp_path, "filters-region-canada,shop-region-filter", "0,1,2,3",
                         "agent.compound_split=false")
    assert on.success.all() and (on_steps.split > 0).any()
    assert (off_steps.split == 0).all() and off.success.mean() < on.success.mean()


def test_compound_split_reaches_a_button_the_row_box_ends_short_of(tmp_path: Path) -> None:
    # Seed 12: the model's "Reviews Write a review" box ends 7-34 px inside the button's right
    # edge. Split by containment alone, the box stayed whole, its centre was clicked (the sticky
    # header), and the late banner's text change was credited to that click.
    on, on_steps = run(tmp_path, "moving-sticky-review", "5,12")
    assert on.success.all(), on[~on.success][["seed", "failure", "failure_detail"]]
    opened = on_steps[on_steps.subgoal_index == 1]
    assert (opened.route == "top").all() and (opened.target_name == "Write a review").all()


def test_gating_reuses_vision_while_the_page_agrees(tmp_path: Path) -> None:
    on, on_steps = run(tmp_path, "shop-shipping-submit,checkout-iframe-pay", "0")
    off, off_steps = run(tmp_path, "shop-shipping-submit,checkout-iframe-pay", "0", "agent.gating=false")
    assert on.success.all() and off.success.all()
    assert (on_steps.cache == "hit").any() and set(on_steps.path) >= {"declarative", "procedural"}
    assert (off_steps.cache == "").all() and "procedural" not in set(off_steps.path)
    assert on.vision_calls.sum() < off.vision_calls.sum()


def test_prefetch_hands_over_only_fresh_results(tmp_path: Path) -> None:
    on, on_steps = run(tmp_path, "shop-region-filter,results-blue-kettle", "0,1", "agent.gating=false")
    off, off_steps = run(tmp_path, "shop-region-filter,results-blue-kettle", "0,1", "agent.gating=false",
                         "agent.prefetch=false")
    assert on.success.all() and off.success.all()
    assert on_steps.prefetch_used.any() and not off_steps.prefetch_used.any()
    assert not off_steps.vision_lagging.any() and not off_steps.prefetch_discarded.any()


def test_dead_action_guard_drops_the_dead_decoy(tmp_path: Path) -> None:
    on, on_steps = run(tmp_path, "noop-save-either,noop-follow", "0,1")
    # (region scope off too: where the page's start-up re-renders the actions bar, its DOM fill
    # can list the live Save beside the dead one and let the agent out by another way)
    off, off_steps = run(tmp_path, "noop-save-either,noop-follow", "0,1", "agent.dead_action_guard=false",
                         "agent.region_scope=false")
    assert on.success.all() and on_steps.dead_action_trigger.any()
    assert not off_steps.dead_action_trigger.any()
    decoy = off[off.task_id == "noop-save-either"]
    assert not decoy.success.any() and (decoy.failure == "max_steps").all()


def test_ambient_filter_sees_through_a_ticking_clock(tmp_path: Path) -> None:
    # The lot's clock changes the page's text ten times a second; the first "Place bid" is dead.
    on, on_steps = run(tmp_path, "noop-bid-live", "0,1,2")
    off, off_steps = run(tmp_path, "noop-bid-live", "0,1,2", "agent.ambient=false")
    assert on.success.all(), on[~on.success][["seed", "failure", "failure_detail"]]
    assert (on_steps.effect == "ambient").any() and on_steps.dead_action_trigger.any()
    # Off, the dead click is credited with the clock's text change and the plan ends there.
    assert not off.success.any() and (off.failure == "wrong_target").all()
    assert "ambient" not in set(off_steps.effect) and (off_steps.ambient_probe_ms == 0).all()
    dead_clicks = off_steps[(off_steps.action == "click") & off_steps.effective]
    assert (dead_clicks.effect == "text").all()
    # With `ambient_key` (on by default) the clock's ticks leave the gating key: the click after
    # the typing reuses the vision epoch. Without it every such step is a `text` miss (region
    # scope off in both, since it would keep the epoch outside the clock's region either way).
    assert ((on_steps.cache == "hit") & (on_steps.miss_reason == "ambient")).any()
    _, keyed = run(tmp_path, "noop-bid-live", "0,1,2", "agent.region_scope=false")
    _, unkeyed = run(tmp_path, "noop-bid-live", "0,1,2", "agent.region_scope=false", "agent.ambient_key=false")
    assert "ambient" not in set(unkeyed.miss_reason) and (unkeyed.miss_reason == "text").any()
    # Per step, not per run: how often the first "Place bid" is tried again before the guard drops
    # it depends on the clock's timing, so the runs' step counts differ by a few.
    assert ((keyed.cache == "hit") & (keyed.miss_reason == "ambient")).any()
    assert keyed.vision_calls.mean() < unkeyed.vision_calls.mean()


def test_navigation_guard_blocks_redirect_bait(tmp_path: Path) -> None:
    on, on_steps = run(tmp_path, "offdomain-track-parcel,offdomain-invoice", "0")
    off, _ = run(tmp_path, "offdomain-track-parcel,offdomain-invoice", "0", "agent.navigation_guard=false")
    assert on.success.all() and (on.out_of_scope_requests == 0).all()
    assert on_steps.blocked_navigation.sum() > 0
    bait = off[off.task_id == "offdomain-track-parcel"].iloc[0]
    assert not bait.success and bait.failure == "left_scope" and bait.out_of_scope_requests > 0


def test_direct_navigation_takes_one_url_and_verifies_the_landing(tmp_path: Path) -> None:
    on, on_steps = run(tmp_path, "adopt-perth-rabbit", "0")
    off, off_steps = run(tmp_path, "adopt-perth-rabbit", "0", "agent.direct_navigation=false")
    assert on.success.all() and off.success.all()
    assert (on_steps.path == "direct").sum() == 1 and "direct" not in set(off_steps.path)
    assert on.steps.iloc[0] < off.steps.iloc[0]


def test_direct_navigation_detects_a_wrong_landing_and_recovers(tmp_path: Path) -> None:
    task = (Path(__file__).resolve().parents[1] / "tasks/fixtures/adopt/perth-rabbit.yaml").read_text()
    mine = tmp_path / "tasks"
    mine.mkdir()
    # "perth" is a valid legacy alias that lands in Australia: the landing must be caught.
    (mine / "wrong.yaml").write_text(task.replace("id: adopt-perth-rabbit", "id: adopt-wrong-alias")
                                     .replace("region: uk-perth, age: young", "region: perth, age: young"))
    result = run_experiment(tmp_path / "run", ["suite=fixtures", "suite.ids=[adopt-wrong-alias]",
                                               f"tasks.dirs=[{mine}]", "perception=synthetic",
                                               "trace.playwright=false"])
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    assert steps.error_type.iloc[0] == "landing_mismatch" and steps.path.iloc[0] == "direct"
    assert result.episodes.success.all()


def test_dead_action_guard_waits_for_a_slow_control() -> None:
    # Two no-ops 0.3 s apart: a control still starting up, not dead; a third 1.1 s after the
    # first: dead. Any effect forgets the no-ops.
    now = [0.0]
    save = TargetIdentity("button", "Save", 100, 600, 80, 32)
    guard = DeadActionGuard(limit=2, min_span_ms=1000, clock=lambda: now[0])
    assert not guard.no_effect(save)
    now[0] = 0.3
    assert not guard.no_effect(save) and save not in guard.dead
    now[0] = 1.1
    assert guard.no_effect(save) and guard.dead == {save}
    guard.next_subgoal()
    assert not guard.no_effect(save)
    now[0] = 2.5
    guard.effective()
    assert not guard.no_effect(save)


def test_dead_action_guard_needs_no_span_when_nothing_could_wake_the_control() -> None:
    # The last two no-ops each left the page with nothing scheduled (agents/schedule.py): the
    # second click met the page as the first look left it, so the target is dead at once; a
    # no-op after which something was scheduled (the page still starting up) needs the span.
    now = [0.0]
    save = TargetIdentity("button", "Save", 100, 600, 80, 32)
    guard = DeadActionGuard(limit=2, min_span_ms=1000, clock=lambda: now[0])
    assert not guard.no_effect(save, still=True)
    now[0] = 0.2
    assert guard.no_effect(save, still=True) and guard.dead == {save}
    guard.next_subgoal()
    assert not guard.no_effect(save, still=False)
    now[0] = 0.4
    assert not guard.no_effect(save, still=True) and not guard.dead
    now[0] = 0.5
    assert guard.no_effect(save, still=True)  # the last two still
    guard.next_subgoal()
    now[0] = 0.0
    assert not guard.no_effect(save, still=True)
    assert not guard.no_effect(save, still=False)
    now[0] = 1.1
    assert guard.no_effect(save, still=False)  # the span


def test_dead_action_guard_knows_a_target_through_box_jitter() -> None:
    # The synthetic model draws a merged 870-px box a few percent differently on every pass
    # (moving-sticky-review seed 5: five no-ops on it never added up when the identity was its
    # position in 10 px cells). The same name in another place stays another target.
    now = [0.0]
    guard = DeadActionGuard(limit=2, min_span_ms=0, clock=lambda: now[0])
    merged = TargetIdentity("", "Reviews Write a review", 38, 336, 856, 48)
    assert not guard.no_effect(merged)
    assert guard.no_effect(merged._replace(x=63, y=333, width=830))
    worker = ScriptedWorker()
    box = {"role": "", "label": "Reviews Write a review", "confidence": 0.9, "source": "vision"}
    jittered = Mark(number=1, box=Box(x=51, y=338, width=845, height=47), **box)
    elsewhere = Mark(number=2, box=Box(x=38, y=900, width=856, height=48), **box)
    subgoal = Subgoal(action="click", target="Write a review button next to the Reviews heading",
                      label="Write a review")
    dead = frozenset(guard.dead)
    assert worker.match(subgoal, [jittered], dead).mark is None
    assert worker.match(subgoal, [jittered, elsewhere], dead).mark == elsewhere


def test_going_back_from_a_challenge_page_drops_the_prefetched_pass(tmp_path: Path) -> None:
    # The prefetched pass started after the click that landed on the challenge page; its
    # screenshot, taken while the agent went back, used to wait up to 30 s for a frame and the
    # next step waited for it: a `timeout` on most seeds with a 15 s heartbeat.
    # (Seen only with other episodes beside it: the three off-domain tasks, two at a time.)
    eps, steps = run(tmp_path, "offdomain-*", "0,1,2,3,4,5,6,7,8,9", "heartbeat_s=10")
    assert eps.success.all(), eps[["task_id", "seed", "failure", "failure_detail"]]
    mirror = eps.task_id == "offdomain-mirror"
    assert steps[steps.task_id == "offdomain-mirror"].challenge.sum() == mirror.sum() == 10
    assert (eps.wall_s < 10).all()


# A panel that slides open on click the way jQuery animates (a style rewrite every 13 ms timer
# tick, the first one late), one that slides with a CSS transition, and one that never stops.
_SLIDES = """<!doctype html><style>#css { transition: top .4s linear; }</style>
<div id="js" style="position:absolute; top:0">js</div><div id="css" style="position:absolute; top:0">css</div>
<div id="ticker" style="position:absolute; top:0">ticker</div>
<script>
  const js = document.getElementById("js"), css = document.getElementById("css");
  function slide() {
    const t0 = performance.now();
    const tick = () => { const f = Math.min(1, (performance.now() - t0) / 400);
      js.style.top = (200 * f) + "px"; if (f < 1) setTimeout(tick, 13); };
    setTimeout(tick, 25);
    css.style.top = "200px";
  }
  function forever() { const t = document.getElementById("ticker");
    setInterval(() => { t.style.top = (performance.now() % 100) + "px"; }, 13); }
</script>"""


def test_settle_waits_for_the_dom_to_go_quiet() -> None:
    # A burst of DOM changes that starts with the action: the settle ends only once no change has
    # come for settle_quiet_ms, so it sees the burst's last node (generous windows: a loaded
    # machine stretches the page's timers).
    async def main() -> None:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content("<ul id=list></ul>")
                settler = Settler(AgentConfig(settle_ms=3000, settle_quiet_ms=80))
                await page.evaluate("""() => { let n = 0; const t = setInterval(() => {
                    document.getElementById('list').append(document.createElement('li'));
                    if (++n === 12) clearInterval(t); }, 10); }""")
                await settler.settle(page)
                assert await page.evaluate("document.querySelectorAll('li').length") == 12
            finally:
                await browser.close()

    asyncio.run(main())


def test_settle_waits_out_an_animation() -> None:
    # A screenshot taken mid-slide puts every box where it no longer is (MiniWoB's
    # click-collapsible-2 lost 6 of 10 episodes to point clicks on a still-sliding accordion).
    async def settled(page, config: AgentConfig, start: str) -> tuple[float, float, float]:
        settler = Settler(config)
        await page.evaluate(start)
        t0 = asyncio.get_running_loop().time()
        await settler.settle(page)
        waited = asyncio.get_running_loop().time() - t0
        tops = await page.evaluate("() => ['js', 'css'].map((id) => document.getElementById(id)"
                                   ".getBoundingClientRect().top)")
        return tops[0], tops[1], waited

    async def main() -> None:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content(_SLIDES)
                js, css, _ = await settled(page, AgentConfig(), "slide()")
                assert (js, css) == (200, 200), "the settle ended mid-slide"
                await page.set_content(_SLIDES)
                js, _, _ = await settled(page, AgentConfig(settle_animation_ms=0), "slide()")
                assert js < 200, "with settle_animation_ms=0 the settle waits settle_ms only"
                await page.set_content(_SLIDES)
                # An endless animation is given up on (how long it was watched depends on the
                # machine's load: a tick starved for 50 ms looks like the end of it).
                *_, waited = await settled(page, AgentConfig(settle_animation_ms=600), "forever()")
                assert waited < 3, f"an endless animation held the settle {waited:.2f} s"
            finally:
                await browser.close()

    asyncio.run(main())


# A switch whose track fades and whose knob (a pseudo-element) slides, a button whose colour
# fades, and a panel that slides in: 400 ms each.
_FADES = """<!doctype html><style>
#switch { position: relative; width: 40px; height: 20px; background: #ccc; transition: background .4s; }
#switch::before { content: ""; position: absolute; left: 0; width: 20px; height: 20px; background: #fff;
                  transition: left .4s; }
#switch.on { background: #28a; } #switch.on::before { left: 20px; }
#button { color: #000; transition: color .4s, box-shadow .4s; } #button.hot { color: #c00; box-shadow: 0 0 4px red; }
#panel { position: absolute; top: 100px; transition: transform .4s; } #panel.open { transform: translateX(200px); }
</style><div id="switch"></div><button id="button">Go</button><div id="panel">panel</div>"""


def test_settle_does_not_wait_for_colours_or_decorations() -> None:
    async def waited(page, start: str) -> float:
        await page.set_content(_FADES)
        await page.evaluate(start)
        t0 = asyncio.get_running_loop().time()
        await Settler(AgentConfig()).settle(page)
        return asyncio.get_running_loop().time() - t0

    async def main() -> None:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                assert await waited(page, "document.getElementById('switch').classList.add('on')") < 0.3
                assert await waited(page, "document.getElementById('button').classList.add('hot')") < 0.3
                assert await waited(page, "document.getElementById('panel').classList.add('open')") >= 0.35
                assert await waited(page, "document.getElementById('panel').animate("
                                          "[{width: '10px'}, {width: '300px'}], 400)") >= 0.35
                assert await waited(page, "document.getElementById('button').animate("
                                          "[{backgroundColor: 'red'}, {backgroundColor: 'blue'}], 400)") < 0.3
            finally:
                await browser.close()

    asyncio.run(main())


def test_a_backend_that_reads_no_pixels_gets_no_screenshot() -> None:
    # The synthetic model reads the page's geometry: a screenshot per call would be taken for
    # nothing (25-80 ms). `capture=true` takes it anyway, to pay what a pixel-reading model costs.
    async def main() -> None:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content("<button>Save</button> <button>Cancel</button>")
                shots: list[dict] = []
                real = page.screenshot

                async def counted(**kwargs):
                    shots.append(kwargs)
                    return await real(**kwargs)

                page.screenshot = counted  # type: ignore[method-assign]
                for capture in (False, True):
                    backend = SyntheticBackend(SyntheticConfig(capture=capture, miss_small_p=0), 0, page)
                    assert backend.reads_pixels is capture
                    rec = StepRecord(step=0, subgoal_index=0, subgoal_action="click")
                    episode = Episode(page=page, brief=None, worker=ScriptedWorker(),  # type: ignore[arg-type]
                                      backend=backend, mechanisms=[], settle=None)  # type: ignore[arg-type]
                    step = Step(episode, Subgoal(action="click", target="Save"), 0, 0, rec)
                    shots.clear()
                    result = await vision_call(step, "Save button", [], "small")
                    assert len(shots) == int(capture) and rec.vision_calls == 1
                    assert {"Save", "Cancel"} <= {c.label for c in result.candidates}
            finally:
                await browser.close()

    asyncio.run(main())


_COVERED = """
<header style="position:fixed;top:0;left:0;right:0;height:100px;background:#123;z-index:2"></header>
<main style="padding-top:40px">
  <button>Under the header</button>
  <div style="margin-top:100px;height:60px;overflow:hidden">
    <div style="height:60px">Terms</div><button>Clipped by its box</button>
  </div>
  <button>In plain sight</button>
</main>"""


def test_synthetic_occlusion_hides_what_is_covered_or_clipped() -> None:
    # What lies wholly under a fixed header, or inside a box's overflow, is not in a screenshot:
    # with occlusion the simulated model does not see it; without, it reads geometry only.
    async def main() -> dict[bool, set[str]]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page(viewport={"width": 800, "height": 600})
                await page.set_content(_COVERED)
                return {occ: {r.text for r in await read_regions(page, occ)} for occ in (False, True)}
            finally:
                await browser.close()

    seen = asyncio.run(main())
    assert {"Under the header", "Clipped by its box", "In plain sight"} <= seen[False]
    assert "In plain sight" in seen[True]
    assert not {"Under the header", "Clipped by its box"} & seen[True]


def test_synthetic_vision_does_not_see_a_control_inside_a_box_faded_to_nothing() -> None:
    # Opacity is not inherited: a button in a row faded to opacity 0 has its own opacity 1, yet
    # nothing of it is drawn (sites/addresses: a removed row left in the document).
    async def main() -> set[str]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page(viewport={"width": 800, "height": 600})
                await page.set_content('<div style="opacity:0"><button>Faded away</button></div>'
                                       '<div style="opacity:.4"><button>Dimmed</button></div>'
                                       '<button>Drawn</button>')
                return {r.text for r in await read_regions(page)}
            finally:
                await browser.close()

    seen = asyncio.run(main())
    assert {"Dimmed", "Drawn"} <= seen and "Faded away" not in seen


def test_synthetic_reads_the_caption_of_an_empty_field() -> None:
    # A hint names an empty field by the label beside it (see synthetic.degrade); the geometry
    # reader carries that label, for empty fields only.
    async def main() -> list[tuple[str, str]]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content('<label for=a>Your maximum bid ($)</label><input id=a>'
                                       '<input aria-label="Coupon code"><input value="typed">'
                                       '<label>Name <input value="Ada"></label>')
                return [(r.text, r.caption) for r in await read_regions(page) if r.kind == "field"]
            finally:
                await browser.close()

    assert asyncio.run(main()) == [("", "Your maximum bid ($)"), ("", "Coupon code"), ("typed", ""),
                                   ("Ada", "")]


def test_a_target_clipped_in_view_is_scrolled_out_when_perception_cannot_see_it(tmp_path: Path) -> None:
    # covered-consent: "Reject all" lies inside the viewport by its box but below the dialog's own
    # scrolling text. A model that sees only what is on top never reports it; the DOM says where
    # it is, so the agent scrolls it into view (once) and perception finds it there.
    on, steps = run(tmp_path, "covered-consent", "0,1", "perception.occlusion=true")
    assert on.success.all(), on[~on.success][["seed", "failure", "failure_detail"]]
    first = steps[steps.subgoal_index == 0]
    assert (first.groupby("seed").effect.first() == "scrolled_into_view").all()
