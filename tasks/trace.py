"""The trace schema: one row per step (`StepRecord`, written by the agent) and one per episode
(`EpisodeRecord`, written by the harness), as stored in steps.parquet and episodes.parquet.

A neutral module: the agent writes these records, the harness stores them (harness/traces.py
derives the parquet schemas from their fields) and the reports read them, so none of those needs
to import another. It imports nothing of agents/, harness/, sites/ or reports/."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# Version of the stored schema: bump it when a field is added, removed or changes type.
# 2: episodes carry raw_reward (MiniWoB). 3: and trace_rerun. 4: steps carry ambient_probe_ms.
# 5: steps carry subgoal_label, target_context, expect_held and state_wrong.
# 6: steps carry transient_ms and hit_bound. 7: and changed_regions, kept_candidates, region_filled.
# 8: and uncovered. 9: and interruption. 10: and resemblance (decided_ahead and decisions came
# later without a bump). 11: and undrawn. 12: and timers_ms. 13: and waits_cut. 14: and quiet_cut. 15: and before_retaken.
# 16: and fp_kept. 17: and at_rest.
SCHEMA_VERSION = 17


class Cost(BaseModel):
    """What one model call (or a decision made of several) cost: wall time, tokens in and out.
    Every part that calls a model reports it this way (a vision backend in its PerceptionResult,
    a worker in its Choice) and the step's record adds it up."""

    model_config = ConfigDict(frozen=True)
    latency_ms: float = Field(0.0, ge=0)
    tokens_in: int = Field(0, ge=0)
    tokens_out: int = Field(0, ge=0)

    def __add__(self, other: Cost) -> Cost:
        return Cost(latency_ms=self.latency_ms + other.latency_ms,
                    tokens_in=self.tokens_in + other.tokens_in,
                    tokens_out=self.tokens_out + other.tokens_out)


class StepRecord(BaseModel):
    """One step of one episode, as written to steps.parquet. Columns are grouped by stage."""

    step: int
    subgoal_index: int
    subgoal_action: str
    subgoal_target: str = ""
    subgoal_label: str = ""  # the visible label the plan says the target shows ("" if none)
    url: str = ""
    observation_id: int = 0
    # observe: what was read (viewport: the containers in view; document: all of it) and why
    observe_scope: str = ""
    observe_reason: str = ""
    # perceive: path = declarative (vision), procedural (reused epoch), dom (no vision), direct
    path: str = ""
    vision_call: bool = False
    vision_calls: int = 0
    tier: str = ""
    tier_escalated: bool = False
    candidates: int = 0
    coverage_pass: bool = False
    coverage_tier: str = ""
    coverage_candidates: int = 0
    coverage_recovered: bool = False
    overlay_marks: int = 0
    overlay_suppressed: str = ""
    perception_error: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    invalid_replies: int = 0
    worker_ms: float = 0.0
    decisions: int = 0  # the worker's decisions charged to this step (prefetch's made ahead included)
    # gating and prefetch
    cache: str = ""
    miss_reason: str = ""
    changed_regions: str = ""  # region scope: where the page changed since the epoch (x,y,w,h;...)
    kept_candidates: int = 0  # ...and how many of the epoch's candidates lie outside it
    region_filled: int = 0  # ...and how many named controls the new observation has inside it
    prefetch_used: bool = False
    prefetch_discarded: bool = False
    vision_lagging: bool = False
    # prefetch's decision made ahead on the DOM's listing while vision looked (agents/prefetch.py):
    # "kept" (it held for vision's listing: the worker was not asked again) or "dropped"
    decided_ahead: str = ""
    # enrich / rank / choose
    unmatched: int = 0
    hit_bound: int = 0  # marks bound by a hit test to a control the accessibility tree lacks
    split: int = 0
    source: str = ""
    mark_rank: int = 0
    relevance: float = 0.0
    match_score: float = 0.0
    resemblance: float = 0.0  # the chosen mark's to the subgoal's `looks_like` picture (0: none given)
    target_role: str = ""
    target_name: str = ""
    # where the chosen target is: its nearby labels and ancestors' names, nearest first, " | "
    target_context: str = ""
    skipped_satisfied: bool = False
    # resolve / act
    action: str = ""
    ref: str = ""
    route: str = ""
    degraded: bool = False
    # the three conditions
    perceptual_confidence: float = 1.0
    actionable: bool = True
    # agents/click_at_rest.py: the action's press (a click, or the one that focused a field to
    # type into) went at once, its target where the observation saw it, on top and enabled
    at_rest: bool = False
    uncovered: str = ""  # agents/uncover.py: escape, click_away, dismiss: <button> (uncovered the target) or still
    # agents/undrawn.py: the labels of the marks left out of the listing as not drawn (JSON list)
    undrawn: str = ""
    # agents/interruptions.py: "appeared" (the action brought up a popup the plan does not
    # mention), "dismissed: <its button>" (the step answered it so), "stayed: <its button>"
    interruption: str = ""
    effective: bool = False
    # validate
    effect: str = ""
    mutation_delta: float = 0.0
    dead_action_trigger: bool = False
    blocked_navigation: int = 0
    # the plan step's page-visible `expect:` check after this step (judged by the harness for any
    # policy; None: the step has no check, or did not act)
    expect_held: bool | None = None
    # what this step's effect set wrong in the server state, judged against the task's success
    # checks by the harness for any policy (fixture tasks; "" when nothing new is wrong)
    state_wrong: str = ""
    challenge: bool = False
    revisit: bool = False
    fp_dom: str = ""
    fp_text: str = ""
    fp_frames: str = ""
    fp_url: str = ""
    # stage timings
    observe_ms: float = 0.0
    perceive_ms: float = 0.0
    vision_wait_ms: float = 0.0
    enrich_ms: float = 0.0
    rank_ms: float = 0.0
    choose_ms: float = 0.0
    resolve_ms: float = 0.0
    act_ms: float = 0.0
    validate_ms: float = 0.0
    # of validate_ms: waiting to see whether what changed changes again by itself (agents/ambient.py)
    ambient_probe_ms: float = 0.0
    # after an action that changed nothing: the wait before the next step (the page may not be
    # ready yet; doubles with each no-op in a row, up to AgentConfig.backoff_max_ms)
    backoff_ms: float = 0.0
    # of validate_ms: waiting for a transient state (spinner, "Loading…", aria-busy, a request in
    # flight) to pass after a settle (agents/transient.py)
    transient_ms: float = 0.0
    # of validate_ms: waiting for the short timers the action set to fire, then for the page to
    # settle again (agents/pending_timers.py)
    timers_ms: float = 0.0
    # waits for the page to change (a transient state, a late effect, the back-off after a no-op)
    # ended early because nothing the page had scheduled could change it before their end
    # (agents/schedule.py)
    waits_cut: int = 0
    # settles of this step whose quiet window ended with the frame: nothing was due within it in
    # any document of the page and no request came since the page last settled (agents/schedule.py)
    quiet_cut: int = 0
    # the page changed between the step's reading and its action: the effect is judged against
    # the page as acted on (agents/act.py)
    before_retaken: bool = False
    # the step's reading began with the fingerprint its last settle read, the page certainly
    # unchanged since (a quiet window ended with the frame, not run out, no request since:
    # agents/settle.py `Settler.still`), instead of one round trip more
    fp_kept: bool = False
    error_type: str = ""
    error: str = ""

    def charge(self, cost: Cost) -> None:
        """Add a model call's tokens to this step (its time is counted by the stage that waited)."""
        self.tokens_in += cost.tokens_in
        self.tokens_out += cost.tokens_out


class EpisodeRecord(BaseModel):
    """One episode, as written to episodes.parquet (columns in this order). Its first five fields
    are the key every step row repeats (`EPISODE_KEYS`)."""

    model_config = ConfigDict(extra="forbid")
    episode_id: str
    task_id: str
    seed: int
    config_name: str
    config_hash: str
    task_version: int
    tags: list[str]
    success: bool
    steps: int
    vision_calls: int
    wall_s: float
    failure: str
    out_of_scope_requests: int
    server_errors: int
    # MiniWoB's own raw reward (WOB_RAW_REWARD_GLOBAL) once its episode ended; None for fixture
    # tasks and for MiniWoB episodes that never ended.
    raw_reward: float | None = None
    # trace.capture=rerun: "" (not rerun), or whether the recorded rerun of this failed episode
    # "failed" too or "passed" (the failure did not reproduce; its artifacts show the rerun).
    trace_rerun: str = ""
    failure_detail: str
    started_at: float


EPISODE_KEYS = ("episode_id", "task_id", "seed", "config_name", "config_hash")
