"""Builds the grounding agent's mechanisms from its config: the one place that reads a switch.

Each mechanism's module holds its config schema (the switch, named after the module, and its
parameters); `AgentConfig` is their union, validated once from Hydra's `agent` group. The list is
in pipeline order, which is also the order a hook asks the mechanisms in: tiers classify a page
before gating stores the epoch and freshness overlays the last one; gating ends an epoch on a
navigation before the navigation guard may go back from a challenge page; the transient wait
comes first, so every settle hook after it (the ambient filter's) sees the page it settled on.
Mechanisms of one's own come in by import path (`agent.plugins`), after these."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agents.ambient import Ambient, AmbientConfig
from agents.ambient_key import AmbientKey, AmbientKeyConfig
from agents.ambient_timers import AmbientTimers, AmbientTimersConfig
from agents.click_at_rest import ClickAtRest, ClickAtRestConfig
from agents.compound_split import CompoundSplit, CompoundSplitConfig
from agents.coverage import Coverage, CoverageConfig
from agents.dead_action_guard import DeadActionGuardConfig, DeadActionGuarding
from agents.direct_navigation import DirectNavigating, DirectNavigationConfig
from agents.enrichment import Enrichment, EnrichmentConfig
from agents.folded import Folded, FoldedConfig
from agents.freshness import Freshness, FreshnessConfig
from agents.gating import Gating, GatingConfig
from agents.hit_binding import HitBinding, HitBindingConfig
from agents.imports import ImportTargetError, TargetConfig, load
from agents.inner_scroll import InnerScroll, InnerScrollConfig
from agents.interruptions import Interruptions, InterruptionsConfig
from agents.navigation_guard import NavigationGuardConfig, NavigationGuarding
from agents.navigation_undo import NavigationUndo, NavigationUndoConfig
from agents.pending_timers import PendingTimers, PendingTimersConfig
from agents.pipeline import Mechanism
from agents.prefetch import Prefetch, PrefetchConfig
from agents.region_scope import RegionScope, RegionScopeConfig
from agents.schedule import Schedule, ScheduleConfig
from agents.sections import Sections, SectionsConfig
from agents.settle import SettleConfig
from agents.snapping import Snapping, SnappingConfig
from agents.subgoal_relevance import SubgoalRelevance, SubgoalRelevanceConfig
from agents.submenus import Submenus, SubmenusConfig
from agents.tiers import Tiers, TiersConfig
from agents.transient import Transient, TransientConfig
from agents.uncover import Uncover, UncoverConfig
from agents.undrawn import Undrawn, UndrawnConfig
from agents.viewport_scope import ViewportScope, ViewportScopeConfig


class PluginSpec(TargetConfig):
    """A mechanism from outside groundbench, by import path (`_target_: pkg.module.Class`), with
    its options beside it. The class subclasses `agents.pipeline.Mechanism`; it may declare its
    options as a nested pydantic model `Config`, and is then built as `Class(Config(**options))`,
    else as `Class(**options)`. It is asked after the built-in mechanisms."""

    @model_validator(mode="after")
    def _loadable(self) -> PluginSpec:
        cls = self.load()
        config = getattr(cls, "Config", None)
        if isinstance(config, type) and issubclass(config, BaseModel):
            config.model_validate(self.options)  # a bad option is an error of the config, now
        return self

    def load(self) -> type[Mechanism]:
        cls = load(self.target, "mechanism", ("start",))
        if not issubclass(cls, Mechanism):
            raise ImportTargetError(f"_target_={self.target!r} is not a subclass of "
                                    "agents.pipeline.Mechanism")
        return cls

    def build(self) -> Mechanism:
        cls = self.load()
        config = getattr(cls, "Config", None)
        if isinstance(config, type) and issubclass(config, BaseModel):
            return cls(config.model_validate(self.options))  # type: ignore[call-arg]
        return cls(**self.options)


class AgentConfig(SettleConfig, ViewportScopeConfig, SnappingConfig, TiersConfig, GatingConfig,
                  PrefetchConfig, FreshnessConfig, EnrichmentConfig, CompoundSplitConfig, HitBindingConfig,
                  SubgoalRelevanceConfig, CoverageConfig, DeadActionGuardConfig, AmbientConfig, AmbientTimersConfig, PendingTimersConfig, ScheduleConfig,
                  NavigationGuardConfig, NavigationUndoConfig, DirectNavigationConfig,
                  TransientConfig, InnerScrollConfig, RegionScopeConfig, AmbientKeyConfig, UncoverConfig,
                  InterruptionsConfig, SubmenusConfig, SectionsConfig, UndrawnConfig, FoldedConfig,
                  ClickAtRestConfig):
    """Hydra's `agent` group. Each boolean switch is named after the module it turns on."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = "full"
    # After a step that changed nothing (an action without effect, or nothing found to act on and
    # nowhere further to look), wait settle_ms, then twice that after the next one in a row, and
    # so on up to backoff_max_ms, before trying again (0: no wait).
    backoff_max_ms: int = Field(1000, ge=0)
    # Mechanisms from outside groundbench, by import path (see PluginSpec).
    plugins: tuple[PluginSpec, ...] = ()


# (switch, builder) in pipeline order.
MECHANISMS: list[tuple[str, Callable[[AgentConfig], Mechanism]]] = [
    ("transient", lambda c: Transient(c.transient_max_ms, c.transient_quiet_ms)),
    ("viewport_scope", lambda c: ViewportScope()),
    ("snapping", lambda c: Snapping()),
    ("tiers", lambda c: Tiers(c.tiers_complex_candidates, c.tiers_complex_controls)),
    ("gating", lambda c: Gating(c.gating_tolerance)),
    ("region_scope", lambda c: RegionScope(c.region_scope_margin_px)),
    ("prefetch", lambda c: Prefetch(c.prefetch_window_ms, c.prefetch_critical_window_ms,
                                    c.action_timeout_ms, c.prefetch_decisions_ahead)),
    ("freshness", lambda c: Freshness(c.freshness_max_steps, c.freshness_max_age_s)),
    ("enrichment", lambda c: Enrichment()),
    ("compound_split", lambda c: CompoundSplit()),
    ("hit_binding", lambda c: HitBinding()),
    ("subgoal_relevance", lambda c: SubgoalRelevance()),
    ("coverage", lambda c: Coverage(c.coverage_cap)),
    ("inner_scroll", lambda c: InnerScroll(c.inner_scroll_visible_share)),
    ("dead_action_guard", lambda c: DeadActionGuarding(c.dead_action_limit, c.dead_action_min_ms)),
    ("ambient", lambda c: Ambient(c.ambient_probe_ms)),
    ("ambient_timers", lambda c: AmbientTimers()),
    ("pending_timers", lambda c: PendingTimers(c.pending_timers_ms, c.pending_timers_max_ms)),
    ("schedule", lambda c: Schedule()),
    ("ambient_key", lambda c: AmbientKey()),
    ("navigation_guard", lambda c: NavigationGuarding()),
    ("navigation_undo", lambda c: NavigationUndo()),
    ("undrawn", lambda c: Undrawn()),
    ("uncover", lambda c: Uncover()),
    ("interruptions", lambda c: Interruptions()),
    ("click_at_rest", lambda c: ClickAtRest()),
    ("folded", lambda c: Folded()),
    ("submenus", lambda c: Submenus()),
    ("sections", lambda c: Sections()),
    ("direct_navigation", lambda c: DirectNavigating()),
]

# A mechanism that works on another's output is built only with it: compound split splits boxes
# for the DOM bridge, hit binding binds what the bridge left unmatched, region scope keeps part of
# the gate's epoch, the ambient key uses what the ambient filter knows, the timers tell the
# ambient filter who made a change, and the pending timers are theirs.
REQUIRES = {"compound_split": "enrichment", "hit_binding": "enrichment", "region_scope": "gating",
            "ambient_key": "ambient", "ambient_timers": "ambient", "pending_timers": "ambient_timers"}


def switches() -> list[str]:
    return [name for name, _ in MECHANISMS]


def build_mechanisms(config: AgentConfig) -> list[Mechanism]:
    """A fresh set of mechanisms (they hold an episode's state): the ones switched on, in order,
    then the plugins."""
    on = {name for name in switches() if getattr(config, name)}
    return [build(config) for name, build in MECHANISMS
            if name in on and REQUIRES.get(name, name) in on] + [p.build() for p in config.plugins]
