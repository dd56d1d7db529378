"""Tests of the OpenAI-compatible pieces (client, `openai` vision backend, `openai` worker) against
a local scripted stub server: replies, malformed output, retries, timeouts, and key hygiene."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml
from PIL import Image
from pydantic import ValidationError
from stub_openai import StubOpenAI, StubReply

from agents.marks import Mark
from agents.observation import Box
from agents.openai_client import (
    ModelCallError,
    OpenAIClient,
    OpenAIClientConfig,
    extract_json,
)
from agents.perception.openai_vision import OpenAIVisionBackend, OpenAIVisionConfig, TierConfig
from agents.worker.openai_worker import OpenAIWorker, OpenAIWorkerConfig
from tasks.schema import Subgoal

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
KEY_ENV = "GROUNDBENCH_TEST_OPENAI_KEY"
KEY = "sk-test-DO-NOT-LEAK-7f3a9c"


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def png(width: int = 320, height: int = 180) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (240, 240, 240)).save(out, format="PNG")
    return out.getvalue()


def decode_data_url(url: str) -> Image.Image:
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubOpenAI]:
    monkeypatch.setenv(KEY_ENV, KEY)
    with StubOpenAI() as s:
        yield s


def client_config(stub: StubOpenAI, **kw: Any) -> OpenAIClientConfig:
    base = {"base_url": stub.base_url, "model": "stub-vlm", "api_key_env": KEY_ENV,
            "timeout_s": 2.0, "max_retries": 2, "backoff_s": 0.01, "backoff_max_s": 0.05}
    return OpenAIClientConfig(**{**base, **kw})


def backend(stub: StubOpenAI, **client_kw: Any) -> OpenAIVisionBackend:
    cfg = OpenAIVisionConfig(
        client=client_config(stub, **client_kw),
        small=TierConfig(model="stub-small", max_side=160, cap=2),
        large=TierConfig(model="stub-large", max_side=0, cap=10),
    )
    return OpenAIVisionBackend(cfg)


def cand(box: list[float], label: str = "Search", confidence: float = 0.9,
         kind: str = "button") -> dict[str, Any]:
    return {"box": box, "label": label, "confidence": confidence, "kind": kind}


def assert_no_key(*things: Any) -> None:
    for t in things:
        text = t.model_dump_json() if hasattr(t, "model_dump_json") else str(t)
        assert KEY not in text


# --------------------------------------------------------------------------- backend


def test_backend_good_reply_and_request(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"candidates": [cand([0.1, 0.2, 0.3, 0.4]),
                                              cand([0.5, 0.5, 0.9, 0.6], "Email", 0.7, "textbox")]},
                              tokens_in=321, tokens_out=45))
    image = png()
    res = run(backend(stub).perceive(image, "click the search button", ["Search", "Email"], "large"))
    assert res.error_type == "" and res.error == ""
    assert [c.label for c in res.candidates] == ["Search", "Email"]
    assert res.candidates[0].box.x0 == pytest.approx(0.1)
    assert res.candidates[1].kind == "textbox" and res.candidates[1].confidence == pytest.approx(0.7)
    assert (res.tier, res.cost.tokens_in, res.cost.tokens_out) == ("large", 321, 45)
    assert res.cost.latency_ms > 0

    (req,) = stub.requests
    assert req.path == "/v1/chat/completions"
    assert req.json["model"] == "stub-large"
    (url,) = req.image_urls()
    assert base64.b64decode(url.split(",", 1)[1]) == image  # max_side 0: sent as is
    prompt = "\n".join(req.texts())
    assert "click the search button" in prompt and '"Search"' in prompt and '"Email"' in prompt
    assert "0..1" in prompt and "top-left" in prompt and "at most 10" in prompt
    # the key travels in the Authorization header and nowhere else
    assert req.headers["Authorization"] == f"Bearer {KEY}"
    others = {k: v for k, v in req.headers.items() if k.lower() != "authorization"}
    assert KEY not in json.dumps(others) and KEY.encode() not in req.body and KEY not in req.path
    assert_no_key(res)


def test_backend_tolerates_fences_and_prose(stub: StubOpenAI) -> None:
    body = json.dumps({"candidates": [cand([0.1, 0.1, 0.2, 0.2])]})
    stub.queue(StubReply.text(f"Here you go:\n```json\n{body}\n```\nHope that helps."),
               StubReply.text(f"<think>the box is top left</think> {body}"))
    b = backend(stub)
    for _ in range(2):
        res = run(b.perceive(png(), "click search", [], "large"))
        assert res.error_type == "" and len(res.candidates) == 1


def test_backend_small_tier_downscales_and_caps(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"candidates": [cand([0.1, 0.1, 0.2, 0.2], f"b{i}") for i in range(5)]}))
    res = run(backend(stub).perceive(png(320, 180), "click", [], "small"))
    assert res.error_type == "" and [c.label for c in res.candidates] == ["b0", "b1"]  # cap 2
    (req,) = stub.requests
    assert req.json["model"] == "stub-small"
    assert decode_data_url(req.image_urls()[0]).size == (160, 90)
    assert "at most 2" in "\n".join(req.texts())


def test_backend_cap_argument_overrides_tier(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"candidates": [cand([0.1, 0.1, 0.2, 0.2], f"b{i}") for i in range(5)]}))
    res = run(backend(stub).perceive(png(), "click", [], "large", cap=3))
    assert len(res.candidates) == 3 and "at most 3" in "\n".join(stub.requests[0].texts())


def test_backend_bad_json(stub: StubOpenAI) -> None:
    stub.queue(StubReply.text("I think the search button is near the top right."),
               StubReply.text('{"candidates": [{"box": [0.1, 0.2'))
    b = backend(stub)
    for _ in range(2):
        res = run(b.perceive(png(), "click search", [], "small"))
        assert res.error_type == "bad_json" and res.candidates == [] and res.error
        assert res.cost.tokens_in == 11  # the call itself succeeded and is still counted


def test_backend_wrong_schema(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"boxes": [[0.1, 0.1, 0.2, 0.2]]}))
    res = run(backend(stub).perceive(png(), "click", [], "large"))
    assert res.error_type == "bad_schema" and "candidates" in res.error


def test_backend_boxes_out_of_range(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"candidates": [cand([120, 40, 260, 80]), cand([0.2, 0.1, 1.3, 0.5])]}))
    res = run(backend(stub).perceive(png(), "click search", [], "large"))
    assert res.error_type == "invalid_boxes" and res.candidates == []
    assert "2 candidates invalid" in res.error


def test_backend_inverted_boxes(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"candidates": [cand([0.5, 0.5, 0.2, 0.6]), cand([0.1, 0.4, 0.3, 0.4])]}))
    res = run(backend(stub).perceive(png(), "click search", [], "large"))
    assert res.error_type == "invalid_boxes" and res.candidates == []


def test_backend_some_invalid_boxes_are_dropped_and_counted(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"candidates": [
        cand([0.1, 0.1, 0.2, 0.2], "ok"), cand([10, 10, 20, 20], "pixels"),
        cand([0.3, 0.3, 0.2, 0.4], "inverted"), {"label": "no box"},
        cand([-0.001, 0.5, 1.001, 0.6], "edge"),  # within the clamp tolerance
    ]}))
    res = run(backend(stub).perceive(png(), "click", [], "large"))
    assert res.error_type == ""
    assert [c.label for c in res.candidates] == ["ok", "edge"]
    assert res.candidates[1].box.x0 == 0 and res.candidates[1].box.x1 == 1
    assert res.error.startswith("dropped 3 of 5 candidates as invalid")


def test_backend_empty_list(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"candidates": []}))
    res = run(backend(stub).perceive(png(), "click search", [], "large"))
    assert res.error_type == "no_candidates" and res.candidates == []


def test_backend_retries_500_then_succeeds(stub: StubOpenAI) -> None:
    stub.queue(StubReply.error(500), StubReply.error(503),
               StubReply.json({"candidates": [cand([0.1, 0.1, 0.2, 0.2])]}))
    res = run(backend(stub).perceive(png(), "click", [], "large"))
    assert res.error_type == "" and len(res.candidates) == 1
    assert len(stub.requests) == 3


def test_backend_retries_429_then_succeeds(stub: StubOpenAI) -> None:
    stub.queue(StubReply.error(429, headers={"Retry-After": "0"}),
               StubReply.json({"candidates": [cand([0.1, 0.1, 0.2, 0.2])]}))
    res = run(backend(stub).perceive(png(), "click", [], "large"))
    assert res.error_type == "" and len(stub.requests) == 2


def test_backend_persistent_500_is_a_recorded_error(stub: StubOpenAI) -> None:
    stub.queue(*[StubReply.error(500, "model exploded")] * 5)
    res = run(backend(stub, max_retries=2).perceive(png(), "click", [], "large"))
    assert res.error_type == "http_error" and res.candidates == []
    assert "500" in res.error and "3 attempts" in res.error
    assert len(stub.requests) == 3  # 1 + max_retries, then it stops
    assert stub.pending == 2


def test_backend_client_error_is_not_retried(stub: StubOpenAI) -> None:
    stub.queue(StubReply.error(400, "bad request"), StubReply.error(400))
    res = run(backend(stub).perceive(png(), "click", [], "large"))
    assert res.error_type == "http_error" and "400" in res.error
    assert len(stub.requests) == 1


def test_backend_timeout(stub: StubOpenAI) -> None:
    stub.queue(*[StubReply.json({"candidates": []}, delay_s=2.0)] * 2)
    t0 = time.perf_counter()
    res = run(backend(stub, timeout_s=0.2, max_retries=1).perceive(png(), "click", [], "large"))
    assert res.error_type == "timeout" and res.candidates == []
    assert len(stub.requests) == 2
    assert time.perf_counter() - t0 < 1.5


def test_backend_connection_refused() -> None:
    with StubOpenAI() as gone:
        url = gone.base_url
    cfg = OpenAIVisionConfig(client=OpenAIClientConfig(base_url=url, timeout_s=1, max_retries=1,
                                                       backoff_s=0.01))
    res = run(OpenAIVisionBackend(cfg).perceive(png(), "click", [], "small"))
    assert res.error_type == "connection"


def test_backend_dropped_connection(stub: StubOpenAI) -> None:
    stub.queue(StubReply(drop=True), StubReply(drop=True))
    res = run(backend(stub, max_retries=1).perceive(png(), "click", [], "large"))
    assert res.error_type == "connection" and len(stub.requests) == 2


def test_backend_non_json_http_body(stub: StubOpenAI) -> None:
    stub.queue(StubReply(body=b"<html>gateway</html>"))
    res = run(backend(stub).perceive(png(), "click", [], "large"))
    assert res.error_type == "bad_response" and len(stub.requests) == 1


def test_backend_bad_image_never_raises(stub: StubOpenAI) -> None:
    res = run(backend(stub).perceive(b"not a png", "click", [], "small"))
    assert res.error_type == "bad_image" and stub.requests == []


# --------------------------------------------------------------------------- key hygiene


def test_key_never_in_errors_even_when_the_server_echoes_it(stub: StubOpenAI) -> None:
    echo = f"invalid api key Bearer {KEY}"
    stub.queue(StubReply.error(401, echo), StubReply.error(500, echo), StubReply.error(500, echo),
               StubReply(body=f"not json {KEY}".encode()))
    client = OpenAIClient(client_config(stub, max_retries=0))
    for _ in range(3):
        with pytest.raises(ModelCallError) as info:
            run(client.chat([{"role": "user", "content": "hi"}]))
        assert_no_key(info.value, info.value.message, repr(info.value))
    res = run(backend(stub, max_retries=0).perceive(png(), "click", [], "large"))
    assert res.error_type == "bad_response"
    assert_no_key(res)


def test_config_holds_a_variable_name_not_a_key() -> None:
    with pytest.raises(ValidationError):
        OpenAIClientConfig(api_key_env="sk-live-abc123")
    assert KEY not in OpenAIClientConfig(api_key_env=KEY_ENV).model_dump_json()


def test_no_key_no_authorization_header(stub: StubOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    stub.queue(StubReply.text("hello"))
    res = run(OpenAIClient(client_config(stub)).chat([{"role": "user", "content": "hi"}]))
    assert res.content == "hello" and (res.cost.tokens_in, res.cost.tokens_out) == (11, 7)
    assert "authorization" not in {k.lower() for k in stub.requests[0].headers}


# --------------------------------------------------------------------------- worker


def mark(n: int, label: str, role: str = "button") -> Mark:
    return Mark(number=n, box=Box(x=10 * n, y=10, width=40, height=20), label=label, role=role)


MARKS = [mark(1, "Search", "searchbox"), mark(2, "Go"), mark(5, "Sign in", "link")]
SUBGOAL = Subgoal(action="click", target="the Go button", label="Go")


def worker(stub: StubOpenAI, **kw: Any) -> OpenAIWorker:
    return OpenAIWorker(OpenAIWorkerConfig(client=client_config(stub), **kw))


def test_worker_valid_mark(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"action": "click", "mark": 2, "reason": "the Go button"},
                              tokens_in=500, tokens_out=20))
    som = png()
    reply, cost = run(worker(stub).ask("find cheap tents", SUBGOAL, MARKS, som,
                                          ["typed 'tent' into [1]"]))
    assert reply is not None and reply.action == "click" and reply.mark == 2
    assert cost.invalid_replies == 0 and cost.error_type == ""
    assert (cost.tokens_in, cost.tokens_out) == (500, 20) and cost.latency_ms > 0
    (req,) = stub.requests
    prompt = "\n".join(req.texts())
    for m in MARKS:
        assert m.listing_line() in prompt
    assert "find cheap tents" in prompt and "Go button" in prompt and "typed 'tent'" in prompt
    assert base64.b64decode(req.image_urls()[0].split(",", 1)[1]) == som
    assert req.headers["Authorization"] == f"Bearer {KEY}" and KEY.encode() not in req.body


def test_worker_type_action_with_fenced_reply(stub: StubOpenAI) -> None:
    stub.queue(StubReply.text('```json\n{"action": "type", "mark": 1, "text": "tent", "clear": true, '
                              '"then": "enter", "point": null}\n```'))
    sub = Subgoal(action="type", target="search box", text="tent", then="enter")
    reply, cost = run(worker(stub).ask("find tents", sub, MARKS, png(), []))
    assert reply is not None and cost.invalid_replies == 0
    assert (reply.action, reply.mark, reply.text, reply.then) == ("type", 1, "tent", "enter")
    assert 'text "tent"' in "\n".join(stub.requests[0].texts())


def test_worker_stale_mark_is_reasked(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"action": "click", "mark": 14}, tokens_in=100, tokens_out=10),
               StubReply.json({"action": "click", "mark": 5}, tokens_in=130, tokens_out=12))
    reply, cost = run(worker(stub).ask("sign in", None, MARKS, png(), []))
    assert reply is not None and reply.mark == 5
    assert cost.invalid_replies == 1 and cost.error_type == ""
    assert (cost.tokens_in, cost.tokens_out) == (230, 22)  # summed over both calls
    assert len(stub.requests) == 2
    second = stub.requests[1].messages
    assert second[-2] == {"role": "assistant", "content": json.dumps({"action": "click", "mark": 14})}
    assert "mark 14 is not in the current listing" in second[-1]["content"]
    assert "1, 2, 5" in second[-1]["content"]
    assert "decide the next step" in "\n".join(stub.requests[0].texts())  # no subgoal given


def test_worker_always_invalid_gives_up(stub: StubOpenAI) -> None:
    stub.queue(StubReply.text("I would click Go."),
               StubReply.json({"action": "execute_js", "mark": 2}),
               StubReply.json({"action": "click"}),
               StubReply.json({"action": "click", "mark": 2}))  # never reached
    reply, cost = run(worker(stub, max_invalid_replies=3).ask("go", SUBGOAL, MARKS, png(), []))
    assert reply is None
    assert cost.error_type == "invalid_reply" and cost.invalid_replies == 3
    assert len(stub.requests) == 3 and stub.pending == 1
    assert (cost.tokens_in, cost.tokens_out) == (33, 21)
    assert "needs a \"mark\"" in cost.error
    reasks = [r.messages[-1]["content"] for r in stub.requests[1:]]
    assert "no JSON" in reasks[0] and "action" in reasks[1]
    assert_no_key(cost)


def test_worker_rejects_extra_keys_and_bad_points(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"action": "click", "mark": 2, "selector": "#go"}),
               StubReply.json({"action": "click", "point": [640, 360]}),
               StubReply.json({"action": "click", "point": [0.5, 0.5]}))
    reply, cost = run(worker(stub).ask("go", SUBGOAL, MARKS, png(), []))
    assert reply is not None and reply.point == (0.5, 0.5) and reply.mark is None
    assert cost.invalid_replies == 2


def test_worker_untargeted_actions_need_no_mark(stub: StubOpenAI) -> None:
    stub.queue(StubReply.json({"action": "scroll", "direction": "down", "reason": "more below"}),
               StubReply.json({"action": "finish", "answer": "done"}))
    w = worker(stub)
    r1, _ = run(w.ask("look", None, [], png(), []))
    r2, _ = run(w.ask("look", None, [], png(), []))
    assert r1 is not None and r1.action == "scroll"
    assert r2 is not None and r2.answer == "done"
    assert "(none" in "\n".join(stub.requests[0].texts())


def test_worker_call_error_is_recorded(stub: StubOpenAI) -> None:
    stub.queue(*[StubReply.error(502)] * 3)
    reply, cost = run(worker(stub).ask("go", SUBGOAL, MARKS, png(), []))
    assert reply is None and cost.error_type == "http_error" and cost.invalid_replies == 0
    assert len(stub.requests) == 3


# --------------------------------------------------------------------------- helpers, conf


def test_extract_json() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('```\n[1, 2]\n```') == [1, 2]
    assert extract_json('Sure! {"a": {"b": 2}} and more') == {"a": {"b": 2}}
    with pytest.raises(ValueError):
        extract_json("no json here")
    with pytest.raises(ValueError):
        extract_json("")


def test_conf_files_validate() -> None:
    vision = OpenAIVisionConfig.model_validate(
        yaml.safe_load((ROOT / "conf/perception/openai.yaml").read_text()))
    assert vision.client.api_key_env == "OPENAI_API_KEY"
    assert vision.client.base_url == "http://127.0.0.1:8000/v1"
    assert vision.small.cap < vision.large.cap
    work = OpenAIWorkerConfig.model_validate(
        yaml.safe_load((ROOT / "conf/worker/openai.yaml").read_text()))
    assert work.max_invalid_replies >= 1 and work.client.api_key_env == "OPENAI_API_KEY"


def test_worker_prompt_matches_the_contract() -> None:
    from typing import get_args

    from agents.worker.base import WorkerReply
    from agents.worker.openai_worker import REPLY_KEYS, system_prompt
    from tasks.schema import ActionName

    assert set(REPLY_KEYS) == set(WorkerReply.model_fields)
    prompt = system_prompt(allow_point=True)
    for action in get_args(ActionName):
        assert f'"action": "{action}"' in prompt
    assert '"point"' not in system_prompt(allow_point=False)


def test_a_subgoals_picture_goes_to_the_model_after_the_screenshot() -> None:
    from agents.worker.openai_worker import build_messages

    icon = Path(__file__).parent / "language" / "sites" / "toolbar" / "icons" / "bolt.png"
    mark = Mark(number=1, box=Box(x=0, y=0, width=30, height=30), label="", role="button")
    want = Subgoal(action="click", target="toolbar button with the icon", looks_like=str(icon))
    user = build_messages("g", want, [mark], b"png", [], OpenAIWorkerConfig())[1]["content"]
    assert "shows the picture given after the screenshot" in user[0]["text"]
    assert [p["type"] for p in user] == ["text", "image_url", "text", "image_url"]
    sent = base64.b64decode(user[3]["image_url"]["url"].split(",", 1)[1])
    assert Image.open(io.BytesIO(sent)).size == Image.open(icon).size
    # without a picture, the screenshot alone
    plain = build_messages("g", want.model_copy(update={"looks_like": None}), [mark], b"png", [],
                           OpenAIWorkerConfig())[1]["content"]
    assert [p["type"] for p in plain] == ["text", "image_url"]
