"""Builds the policy under test from `policy=...` (a Hydra group: `agent`, `oracle`, `naive_text`,
or `custom` with `policy._target_=pkg.module.Class`). Every policy goes through the same door:
the class is imported and checked before any browser starts, built from its options (or through
`from_setup`), and run as an episode policy; a step policy is wrapped in `StepLoop`, a
BrowserGym-style agent (`get_action`) first in `agents.browsergym.BrowserGymPolicy`."""

from __future__ import annotations

from pydantic import Field, model_validator

from agents.browsergym import BrowserGymPolicy
from agents.imports import ImportTargetError, TargetConfig, load
from agents.policy import EpisodePolicy, PolicySetup, StepLoop


class PolicyConfig(TargetConfig):
    """Hydra's `policy` group: a name for traces and reports, an import path, and the options the
    class is built with (every other key)."""

    name: str = "agent"
    target: str = Field("agents.agent.GroundingAgent", alias="_target_")

    @model_validator(mode="after")
    def _loadable(self) -> PolicyConfig:
        policy_class(self)  # an import error or a missing method stops the run before a browser
        return self


def policy_class(config: PolicyConfig) -> type:
    """The class behind `_target_`: an episode policy (`run`), a step policy (`act`) or a
    BrowserGym-style agent (`get_action`); see agents/policy.py."""
    try:
        return load(config.target, "policy", ("run", "act", "get_action"))
    except ImportTargetError as exc:
        raise ImportTargetError(f"policy: {exc}") from None


def needs_ground_truth(config: PolicyConfig) -> bool:
    return bool(getattr(policy_class(config), "needs_ground_truth", False))


def build_policy(config: PolicyConfig, setup: PolicySetup) -> EpisodePolicy:
    cls = policy_class(config)
    from_setup = getattr(cls, "from_setup", None)
    policy = from_setup(setup, **config.options) if callable(from_setup) else cls(**config.options)
    if callable(getattr(policy, "run", None)):
        return policy
    if not callable(getattr(policy, "act", None)):  # a BrowserGym-style agent
        policy = BrowserGymPolicy(policy)
    return StepLoop(policy, setup.agent)
