"""Parts of one's own by import path (`_target_: package.module.Class`): one loader, one config
shape and one wording of what went wrong, for policies, mechanisms, perception backends and
workers. A failure is a ValueError, so a pydantic config reports it as an error of the config
before any browser starts."""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ImportTargetError(ValueError):
    pass


def load(target: str, role: str, methods: tuple[str, ...]) -> type:
    """The class at `target`, which must define one of `methods` (what makes it a `role`)."""
    if target == "???":
        raise ImportTargetError(f"a {role} of your own needs its class: _target_=package.module.Class")
    module, _, name = target.rpartition(".")
    if not module:
        raise ImportTargetError(f"_target_={target!r} is not an import path (expected "
                                "package.module.Class)")
    try:
        cls = getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise ImportTargetError(f"_target_={target!r}: cannot import {module!r} ({exc}; is its "
                                "package installed in this environment?)") from None
    except AttributeError:
        raise ImportTargetError(f"_target_={target!r}: module {module!r} has no {name!r}") from None
    if not isinstance(cls, type) or not any(callable(getattr(cls, m, None)) for m in methods):
        wanted = " or ".join(f"`{m}`" for m in methods)
        raise ImportTargetError(f"_target_={target!r} is not a {role}: it has no {wanted} method")
    return cls


class TargetConfig(BaseModel):
    """`_target_` plus the options the class is built with (every other key)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)
    target: str = Field(alias="_target_")

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    @property
    def class_name(self) -> str:
        return self.target.rpartition(".")[2]
