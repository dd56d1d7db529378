"""Builds the policy under test from `policy=...` (a Hydra group: `agent`, `oracle`, `naive_text`,
or `custom` with `policy._target_=pkg.module.Class`). Every policy goes through the same door:
the class is imported and checked before any browser starts, built from its options (or through
`from_setup`), and run as an episode policy; a step policy is wrapped in `StepLoop`, a
BrowserGym-style agent (`get_action`) first in `agents.browsergym.BrowserGymPolicy`."""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agents.browsergym import BrowserGymPolicy
from agents.policy import EpisodePolicy, PolicySetup, StepLoop


class PolicyError(ValueError):
    """A policy that cannot be built: the import fails, or the class has neither `run` nor `act`."""


class PolicyConfig(BaseModel):
    """Hydra's `policy` group: a name for traces and reports, an import path, and the options the
    class is built with (every other key)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)
    name: str = "agent"
    target: str = Field("agents.agent.GroundingAgent", alias="_target_")

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    @model_validator(mode="after")
    def _loadable(self) -> PolicyConfig:
        policy_class(self)  # an import error or a missing method stops the run before a browser
        return self


def policy_class(config: PolicyConfig) -> type:
    """The class behind `_target_`, checked: importable, and an episode or a step policy."""
    if config.target == "???":
        raise PolicyError("policy=custom needs the class: policy._target_=package.module.Class")
    module, _, name = config.target.rpartition(".")
    if not module:
        raise PolicyError(f"policy._target_={config.target!r} is not an import path "
                          "(expected package.module.Class)")
    try:
        cls = getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise PolicyError(f"policy._target_={config.target!r}: cannot import {module!r} ({exc}; "
                          "is its package installed in this environment?)") from None
    except AttributeError:
        raise PolicyError(f"policy._target_={config.target!r}: module {module!r} has no "
                          f"{name!r}") from None
    if not any(callable(getattr(cls, method, None)) for method in ("run", "act", "get_action")):
        raise PolicyError(f"policy._target_={config.target!r} has neither `async def act(self, "
                          "view)` (a step policy) nor `async def run(self, page, brief, on_step, "
                          "...)` (an episode policy) nor BrowserGym's `get_action(self, obs)`: "
                          "see agents/policy.py")
    return cls


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
