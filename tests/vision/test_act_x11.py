"""POST /api/v1/vision/act on a real Xvfb with a real desktopd, against a local server that speaks
each vendor's real request and response format (testbed/vendor_server.py; the real model
services are not reachable here): the plan's actions run on X (the pointer ends where the model
said), the next request carries the vendor's follow-up (tool_result, computer_call_output, the
chat history), budgets end the loop, malformed plans stop it, a hung-up client cancels it."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from testbed.desktopd import DesktopdProcess, start_desktopd
from testbed.vendor_server import HANG, VendorServer, wait_for

pytestmark = pytest.mark.x11

KEY = "sk-test-key"


@pytest.fixture(scope="module")
def vendor() -> Iterator[VendorServer]:
    server = VendorServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def acting(xvfb, vendor, tmp_path_factory) -> Iterator[DesktopdProcess]:
    folder = tmp_path_factory.mktemp("vision-models")
    (folder / "key").write_text(KEY + "\n")
    models = {"default": "claude", "models": {
        name: {"api": api, "base_url": vendor.url, "model": f"{api}-model", "key_file": str(folder / "key")}
        for name, api in (("claude", "anthropic"), ("operator", "openai"), ("grounder", "chat"))}}
    (folder / "models.json").write_text(json.dumps(models))
    server = start_desktopd(xvfb.display, env={"DESKTOPD_VISION_MODELS": str(folder / "models.json")})
    try:
        yield server
    finally:
        server.stop()


def act(desktopd: DesktopdProcess, **body) -> dict:
    answer = desktopd.request("POST", "/api/v1/vision/act", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def anthropic_reply(*content: dict, tokens: tuple[int, int] = (1200, 40)) -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "anthropic-model",
            "content": list(content), "stop_reason": "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn",
            "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]}}


def chat_reply(text: str, tokens: tuple[int, int] = (900, 20)) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "chat-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "total_tokens": sum(tokens)}}


def test_anthropic_computer_use_runs_its_clicks_and_stops_when_done(acting, vendor):
    vendor.script("/v1/messages",
                  anthropic_reply({"type": "text", "text": "Clicking."},
                                  {"type": "tool_use", "id": "toolu_1", "name": "computer",
                                   "input": {"action": "left_click", "coordinate": [321, 123]}}),
                  anthropic_reply({"type": "text", "text": "All done."}))
    answer = act(acting, instruction="click the thing", max_steps=5)
    assert answer["status"] == "done" and answer["message"] == "All done."
    assert answer["steps"] == 2
    assert answer["trace"][0]["actions"][0]["executed"]["x"] == 321
    assert answer["trace"][0]["actions"][0]["executed"]["y"] == 123
    assert answer["usage"] == {"input_tokens": 2400, "output_tokens": 80}
    first, second = vendor.requests["/v1/messages"]
    assert vendor.headers["/v1/messages"][0]["x-api-key"] == KEY
    assert first["tools"][0] == {"type": "computer_20250124", "name": "computer",
                                 "display_width_px": 1280, "display_height_px": 800}
    assert first["messages"][0]["content"][0] == {"type": "text", "text": "click the thing"}
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_1"
    assert result["content"][-1]["type"] == "image"
    assert answer["trace"][1]["screenshot"]["sha256"] != ""
    assert answer["final_screenshot"]["media_type"] == "image/png"


def test_openai_computer_use_follows_up_with_the_call_output(acting, vendor):
    vendor.script("/v1/responses",
                  {"id": "resp_1", "output": [{"type": "computer_call", "id": "cu_1", "call_id": "call_1",
                                               "action": {"type": "click", "button": "left", "x": 200, "y": 150},
                                               "pending_safety_checks": [], "status": "completed"}],
                   "usage": {"input_tokens": 1000, "output_tokens": 30}},
                  {"id": "resp_2", "output": [{"type": "message", "role": "assistant",
                                               "content": [{"type": "output_text", "text": "Finished."}]}],
                   "usage": {"input_tokens": 1100, "output_tokens": 10}})
    answer = act(acting, instruction="open it", model="operator")
    assert answer["status"] == "done" and answer["message"] == "Finished."
    assert answer["trace"][0]["actions"][0]["executed"]["x"] == 200
    first, second = vendor.requests["/v1/responses"]
    assert vendor.headers["/v1/responses"][0]["Authorization"] == f"Bearer {KEY}"
    assert first["tools"][0]["type"] == "computer_use_preview"
    assert second["previous_response_id"] == "resp_1"
    assert second["input"][0]["type"] == "computer_call_output" and second["input"][0]["call_id"] == "call_1"
    assert second["input"][0]["output"]["image_url"].startswith("data:image/png;base64,")


def test_a_grounding_chat_model_answers_json_actions(acting, vendor):
    vendor.script("/v1/chat/completions",
                  chat_reply('Sure.\n```json\n{"action": "click", "x": 64, "y": 48}\n```'),
                  chat_reply('{"action": "done", "answer": "clicked it"}'))
    answer = act(acting, instruction="press the button", model="grounder")
    assert answer["status"] == "done" and answer["message"] == "clicked it"
    assert answer["trace"][0]["actions"][0]["executed"]["x"] == 64
    second = vendor.requests["/v1/chat/completions"][1]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    # Only the newest screenshot travels again.
    images = [c for m in second["messages"] if isinstance(m["content"], list) for c in m["content"]
              if c["type"] == "image_url"]
    assert len(images) == 1


@pytest.mark.parametrize("model, path, reply", [
    ("claude", "/v1/messages", {"content": "not a list"}),
    ("operator", "/v1/responses", "<html>not json</html>"),
    ("grounder", "/v1/chat/completions", chat_reply("I would click the blue button.")),
    ("grounder", "/v1/chat/completions", chat_reply('{"action": "teleport"}')),
    ("grounder", "/v1/chat/completions", chat_reply('{"action": "click", "x": 99999, "y": 5}')),
])
def test_malformed_plans_stop_the_loop_and_say_why(acting, vendor, model, path, reply):
    vendor.script(path, reply)
    answer = act(acting, instruction="anything", model=model, max_steps=3)
    assert answer["status"] == "malformed_plan", answer
    assert answer["detail"]
    assert len(vendor.requests[path]) == 1


def test_a_model_that_never_says_done_ends_at_max_steps_and_the_token_budget(acting, vendor):
    click = chat_reply('{"action": "click", "x": 10, "y": 10}', tokens=(1000, 10))
    vendor.script("/v1/chat/completions", then=click)
    answer = act(acting, instruction="loop forever", model="grounder", max_steps=3)
    assert answer["status"] == "max_steps" and answer["steps"] == 3
    assert len(vendor.requests["/v1/chat/completions"]) == 3
    assert all(step["overhead_ms"] >= 0 and step["model_latency_ms"] >= 0 for step in answer["trace"])

    vendor.script("/v1/chat/completions", then=click)
    answer = act(acting, instruction="loop forever", model="grounder", max_steps=10, budget={"tokens": 2500})
    assert answer["status"] == "token_budget" and answer["steps"] == 3
    assert answer["usage"] == {"input_tokens": 3000, "output_tokens": 30}


def test_the_time_budget_bounds_a_model_that_does_not_answer(acting, vendor):
    vendor.hung_up.clear()
    vendor.script("/v1/chat/completions", HANG)
    answer = act(acting, instruction="wait", model="grounder", budget={"seconds": 1})
    assert answer["status"] == "time_budget", answer
    assert vendor.hung_up.wait(20)   # the pending call was dropped, not left running


def test_a_client_that_hangs_up_cancels_the_model_call(acting, vendor):
    vendor.hung_up.clear()
    vendor.script("/v1/messages", HANG)
    host, port = acting.url.removeprefix("http://").split(":")
    body = json.dumps({"instruction": "wait"}).encode()
    client = socket.create_connection((host, int(port)), timeout=30)
    try:
        client.sendall(b"POST /api/v1/vision/act HTTP/1.1\r\nHost: " + f"{host}:{port}".encode()
                       + b"\r\nContent-Type: application/json\r\nContent-Length: "
                       + str(len(body)).encode() + b"\r\n\r\n" + body)
        assert wait_for(lambda: len(vendor.requests["/v1/messages"]) == 1)
    finally:
        client.close()   # the client goes; desktopd cancels the loop and drops the model call
    assert vendor.hung_up.wait(20)
    assert len(vendor.requests["/v1/messages"]) == 1


def test_without_a_model_the_loop_refuses(acting, xvfb):
    assert act_status(acting, {"instruction": "x", "model": "nobody"}) == 503
    plain = start_desktopd(xvfb.display)
    try:
        answer = plain.request("POST", "/api/v1/vision/act", json={"instruction": "x"})
        assert answer.status_code == 503 and answer.json()["error"] == "no_vision_model"
    finally:
        plain.stop()


def act_status(desktopd: DesktopdProcess, body: dict) -> int:
    return desktopd.request("POST", "/api/v1/vision/act", json=body).status_code
