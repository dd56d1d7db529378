"""The validator's verdict on a failed action: a click whose wait for its navigation timed out but
whose page did move on counts as effective (evidence `url_after_timeout`); the same timeout with
the page where it was, or another failure, does not."""

from __future__ import annotations

import asyncio

from agents import validator
from agents.actions import Click, Type
from agents.fingerprint import Fingerprint


def fp(url: str) -> Fingerprint:
    return Fingerprint(dom="d", text="t", frames="f", url=url, values="v", mutations=0, size=10)


def verdict(action, error_type: str, before: str, after: str) -> tuple[bool, str]:
    # Failed actions are judged from the fingerprints alone: the page is never touched.
    return asyncio.run(validator.effect(None, action, error_type, fp(before), fp(after), None))


def test_click_that_timed_out_but_navigated_is_effective() -> None:
    click = Click(ref="e5", observation_id=1)
    assert verdict(click, "action_timeout", "http://a/cart", "http://a/checkout") == (True, "url_after_timeout")
    assert verdict(click, "action_timeout", "http://a/cart", "http://a/cart") == (False, "action_failed")
    assert verdict(click, "action_error", "http://a/cart", "http://a/checkout") == (False, "action_failed")
    typing = Type(ref="e5", observation_id=1, text="x")
    assert verdict(typing, "action_timeout", "http://a/cart", "http://a/checkout") == (False, "action_failed")
