"""The three kinds of vision model the act loop talks to, each in its vendor's own wire format:
Anthropic's Messages API with the computer tool, OpenAI's Responses API with
computer_use_preview, and an OpenAI-compatible chat endpoint whose (grounding) model answers one
JSON action with coordinates. Each turns the model's answer into a plan: actions in the shape of
desktopd's existing executors (desktopd/computer/format_servers/: anthropic_server.py and
openai_server.py), or done."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import aiohttp

from desktopd.computer.display import Display, b64
from httpapi.json_types import JSONObject

from .model_config import VisionModel

ANTHROPIC_VERSION = "2023-06-01"
ANTHROPIC_BETA = "computer-use-2025-01-24"
ANTHROPIC_TOOL = "computer_20250124"
MAX_TOKENS = 1024


class MalformedPlan(Exception):
    """The model answered something that is no plan (the loop stops and says so)."""


@dataclass(frozen=True)
class PlannedAction:
    executor: str                  # "anthropic" or "openai": which executor's shape ``action`` has
    action: JSONObject             # as the model gave it; the executor validates it
    call_id: str | None = None     # the vendor's id, echoed in the next request


@dataclass
class Plan:
    actions: list[PlannedAction]
    done: bool
    message: str | None
    input_tokens: int
    output_tokens: int
    latency_ms: float = 0.0


@dataclass(frozen=True)
class Outcome:
    """What executing one planned action gave (error: why it could not run)."""

    action: PlannedAction
    text: str | None = None
    error: str | None = None


class Planner(Protocol):
    async def plan(self, screenshot: bytes, outcomes: list[Outcome]) -> Plan:
        """The next plan, given the screenshot taken after ``outcomes`` (empty at the start)."""
        ...


async def post_json(http: aiohttp.ClientSession, url: str, headers: dict[str, str],
                    body: Mapping[str, object]) -> tuple[JSONObject, float]:
    started = time.perf_counter()
    async with http.post(url, json=body, headers=headers) as response:
        text = await response.text()
        latency = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise MalformedPlan(f"{url} answered {response.status}: {text[:500]}")
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        raise MalformedPlan(f"{url} answered no JSON: {text[:200]!r}") from None
    if not isinstance(answer, dict):
        raise MalformedPlan(f"{url} answered JSON that is no object")
    return answer, latency


def _tokens(usage: object, *names: str) -> int:
    value = usage.get(names[0]) if isinstance(usage, dict) else None
    return value if isinstance(value, int) else 0


def _bearer(model: VisionModel) -> dict[str, str]:
    key = model.key()
    return {"Authorization": f"Bearer {key}"} if key else {}


@dataclass
class Conversation:
    """What every planner talks with and about."""

    http: aiohttp.ClientSession
    model: VisionModel
    display: Display
    instruction: str


@dataclass
class AnthropicPlanner(Conversation):
    messages: list[dict[str, object]] = field(default_factory=list)   # sent as JSON

    async def plan(self, screenshot: bytes, outcomes: list[Outcome]) -> Plan:
        image: dict[str, object] = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                "data": b64(screenshot)}}
        if not outcomes:
            self.messages.append({"role": "user", "content": [{"type": "text", "text": self.instruction}, image]})
        else:
            results = []
            for i, outcome in enumerate(outcomes):
                content: list[dict[str, object]] = []
                if outcome.error:
                    content.append({"type": "text", "text": outcome.error})
                elif outcome.text:
                    content.append({"type": "text", "text": outcome.text})
                if i == len(outcomes) - 1:
                    content.append(image)   # the screen after the last action
                result: dict[str, object] = {"type": "tool_result", "tool_use_id": outcome.action.call_id,
                                             "content": content}
                if outcome.error:
                    result["is_error"] = True
                results.append(result)
            self.messages.append({"role": "user", "content": results})
        body = {"model": self.model.model, "max_tokens": MAX_TOKENS, "messages": self.messages,
                "tools": [{"type": ANTHROPIC_TOOL, "name": "computer",
                           "display_width_px": self.display.advertised[0],
                           "display_height_px": self.display.advertised[1]}]}
        headers = {"anthropic-version": ANTHROPIC_VERSION, "anthropic-beta": ANTHROPIC_BETA}
        key = self.model.key()
        if key:
            headers["x-api-key"] = key
        answer, latency = await post_json(self.http, self.model.base_url + "/v1/messages", headers, body)
        blocks = answer.get("content")
        if not isinstance(blocks, list):
            raise MalformedPlan("the Messages answer has no content list")
        self.messages.append({"role": "assistant", "content": blocks})
        actions, texts = [], []
        for block in blocks:
            if not isinstance(block, dict):
                raise MalformedPlan("a content block is no object")
            if block.get("type") == "text":
                texts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                tool_input = block.get("input")
                if block.get("name") != "computer" or not isinstance(tool_input, dict):
                    raise MalformedPlan(f"a tool_use of no computer action: {json.dumps(block)[:200]}")
                actions.append(PlannedAction("anthropic", tool_input, str(block.get("id"))))
        usage = answer.get("usage")
        return Plan(actions, done=not actions, message="\n".join(texts) or None,
                    input_tokens=_tokens(usage, "input_tokens"), output_tokens=_tokens(usage, "output_tokens"),
                    latency_ms=latency)


@dataclass
class OpenAIPlanner(Conversation):
    previous: str | None = None

    async def plan(self, screenshot: bytes, outcomes: list[Outcome]) -> Plan:
        image_url = "data:image/png;base64," + b64(screenshot)
        body: dict[str, object] = {"model": self.model.model, "truncation": "auto", "tools": [{
            "type": "computer_use_preview", "environment": "linux",
            "display_width": self.display.advertised[0], "display_height": self.display.advertised[1]}]}
        if not outcomes:
            body["input"] = [{"role": "user", "content": [{"type": "input_text", "text": self.instruction},
                                                          {"type": "input_image", "image_url": image_url}]}]
        else:
            body["previous_response_id"] = self.previous
            body["input"] = [{"type": "computer_call_output", "call_id": outcomes[-1].action.call_id,
                              "output": {"type": "computer_screenshot", "image_url": image_url}}]
        answer, latency = await post_json(self.http, self.model.base_url + "/v1/responses",
                                          _bearer(self.model), body)
        output = answer.get("output")
        if not isinstance(output, list):
            raise MalformedPlan("the Responses answer has no output list")
        self.previous = str(answer.get("id"))
        actions, texts = [], []
        for item in output:
            if not isinstance(item, dict):
                raise MalformedPlan("an output item is no object")
            if item.get("type") == "computer_call":
                call_action = item.get("action")
                if not isinstance(call_action, dict):
                    raise MalformedPlan(f"a computer_call without an action: {json.dumps(item)[:200]}")
                actions.append(PlannedAction("openai", call_action, str(item.get("call_id"))))
            elif item.get("type") == "message":
                content = item.get("content")
                texts += [str(c.get("text", "")) for c in (content if isinstance(content, list) else [])
                          if isinstance(c, dict)]
        usage = answer.get("usage")
        return Plan(actions, done=not actions, message="\n".join(texts) or None,
                    input_tokens=_tokens(usage, "input_tokens"), output_tokens=_tokens(usage, "output_tokens"),
                    latency_ms=latency)


CHAT_PROMPT = """You operate a Linux desktop whose screenshot is {width}x{height} pixels; (0, 0) is
its top-left. Answer with exactly one JSON object and nothing else, one of:
{{"action": "click", "x": X, "y": Y, "button": "left"}}
{{"action": "double_click", "x": X, "y": Y}}
{{"action": "type", "text": "..."}}
{{"action": "key", "keys": ["ctrl", "s"]}}
{{"action": "scroll", "x": X, "y": Y, "scroll_y": PIXELS}}
{{"action": "done", "answer": "..."}} when the task is finished.
Task: {instruction}"""

# A grounding model's JSON action -> the OpenAI computer_call action desktopd executes.
CHAT_ACTIONS = {"click": "click", "double_click": "double_click", "type": "type", "key": "keypress",
                "scroll": "scroll", "move": "move"}
JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def chat_action(text: str) -> JSONObject:
    """The one JSON object in a chat answer (bare or in a code fence) -> {"action": ...}."""
    found = JSON_OBJECT.search(text)
    if found is None:
        raise MalformedPlan(f"the model answered no JSON action: {text[:200]!r}")
    try:
        action = json.loads(found.group(0))
    except json.JSONDecodeError:
        raise MalformedPlan(f"the model's action is no JSON: {found.group(0)[:200]!r}") from None
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise MalformedPlan(f"the model's JSON names no action: {found.group(0)[:200]!r}")
    return action


@dataclass
class ChatPlanner(Conversation):
    messages: list[dict[str, object]] = field(default_factory=list)   # sent as JSON

    async def plan(self, screenshot: bytes, outcomes: list[Outcome]) -> Plan:
        image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(screenshot)}}
        if not self.messages:
            prompt = CHAT_PROMPT.format(width=self.display.advertised[0], height=self.display.advertised[1],
                                        instruction=self.instruction)
            self.messages.append({"role": "user", "content": [{"type": "text", "text": prompt}, image]})
        else:
            # Only the newest screenshot is sent: older ones are replaced by a note (tokens).
            for message in self.messages:
                if message["role"] == "user" and isinstance(message["content"], list):
                    message["content"] = [c if c["type"] == "text" else {"type": "text", "text": "(an earlier screenshot)"}
                                          for c in message["content"]]
            note = "; ".join(f"error: {o.error}" for o in outcomes if o.error) or "done"
            self.messages.append({"role": "user", "content": [
                {"type": "text", "text": f"Result: {note}. The screen now:"}, image]})
        body = {"model": self.model.model, "messages": self.messages, "max_tokens": MAX_TOKENS, "temperature": 0}
        answer, latency = await post_json(self.http, self.model.base_url + "/v1/chat/completions",
                                          _bearer(self.model), body)
        choices = answer.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        said = first.get("message") if isinstance(first, dict) else None
        if not isinstance(said, dict) or "content" not in said:
            raise MalformedPlan("the chat answer has no choices[0].message.content")
        text = said["content"]
        if not isinstance(text, str):
            raise MalformedPlan("the chat answer's content is no text")
        self.messages.append({"role": "assistant", "content": text})
        usage = answer.get("usage")
        tokens = (_tokens(usage, "prompt_tokens"), _tokens(usage, "completion_tokens"))
        action = chat_action(text)
        kind = action.pop("action")
        if kind == "done":
            answer_text = action.get("answer")
            return Plan([], True, answer_text if isinstance(answer_text, str) else None, *tokens, latency)
        if kind not in CHAT_ACTIONS:
            raise MalformedPlan(f"unknown action {kind!r} (known: done, {', '.join(CHAT_ACTIONS)})")
        if kind == "scroll":
            action.setdefault("scroll_x", 0)
        return Plan([PlannedAction("openai", {"type": CHAT_ACTIONS[kind], **action})], False, None, *tokens, latency)


def planner_for(http: aiohttp.ClientSession, model: VisionModel, display: Display, instruction: str) -> Planner:
    kinds = {"anthropic": AnthropicPlanner, "openai": OpenAIPlanner, "chat": ChatPlanner}
    return kinds[model.api](http, model, display, instruction)
