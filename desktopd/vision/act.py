"""POST /api/v1/vision/act: screenshot, ask the configured vision model, run its plan through
desktopd's computer-use executors, repeat until it is done or a budget ends it. The trace holds
every action, a reference to the screenshot the model saw, the model's latency and tokens, and
the loop's own time; the final screenshot comes with the answer. A client that hangs up cancels
the handler, and with it the model call and the loop (aiohttp cancels a dropped request)."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import NotRequired, TypedDict

import aiohttp
from aiohttp import web

from desktopd import app_keys
from desktopd.computer.display import Display, b64, model_screenshot
from desktopd.computer.vendor_format import server_side
from desktopd.app_keys import settler, backend_service
from desktopd.settle.settler import DEFAULT_MAX_S, DEFAULT_QUIET_S, SettledJson, SettleSpec, settled_capture
from desktopd.settle.browser import Clicks
from desktopd.backend.service import BackendService
from desktopd_contract.formats import FORMATS
from httpapi.bodies import Typed
from httpapi.errors import ApiError
from httpapi.fields import F, Const, Enum, Int, ListOf, Model, Nullable, Opaque, Str
from httpapi.responses import ResponseModel
from httpapi.json_types import JSONObject

from .model_config import VisionModels
from .vendors import MalformedPlan, Outcome, Plan, PlannedAction, planner_for

MAX_STEPS = 100
DEFAULT_STEPS = 10
MODEL_CALL_TIMEOUT_S = 120.0



class VisionActBudget(TypedDict):
    tokens: int | None
    seconds: int | None


class VisionAct(TypedDict):
    instruction: str
    model: str | None
    max_steps: int
    budget: VisionActBudget | None


BUDGET = Model("VisionActBudget", [
    F("tokens", Int(1, 100_000_000), description="Input plus output tokens over all model calls."),
    F("seconds", Int(1, 3600), description="Wall time of the whole loop."),
])
ACT_BODY = Typed(Model("VisionAct", [
    F("instruction", Str(min_length=1, max_length=20_000), required=True, description="The task, in words."),
    F("model", Str(min_length=1, max_length=200),
      description="A configured model's name (DESKTOPD_VISION_MODELS); omitted: the default."),
    F("max_steps", Int(1, MAX_STEPS), default=DEFAULT_STEPS, description="Model calls at most."),
    F("budget", BUDGET, description="Stops the loop when spent (checked after every model call)."),
]), VisionAct)
ACT_RESULT = ResponseModel("VisionActResult", [
    F("status", Enum(["done", "max_steps", "token_budget", "time_budget", "malformed_plan"], typed=False)),
    F("detail", Nullable(Str())), F("message", Nullable(Str())),
    F("model", Opaque("object")), F("steps", Int()),
    F("usage", ResponseModel("VisionActUsage", [F("input_tokens", Int()), F("output_tokens", Int())])),
    F("trace", ListOf(Opaque("object"))),
    F("final_screenshot", ResponseModel("VisionActScreenshot", [
        F("media_type", Const("image/png", typed=False)), F("data", Str()), F("sha256", Str()),
    ])),
])

class ScreenshotRef(TypedDict):
    step: int
    sha256: str
    bytes: int


class Executed(TypedDict):
    executed: JSONObject
    text: str | None
    clicks: Clicks | None      # the left clicks it gave a page (the settle's browser evidence)


class TracedAction(TypedDict):
    action: JSONObject
    executed: NotRequired[JSONObject]
    error: NotRequired[str]


class Usage(TypedDict):
    input_tokens: int
    output_tokens: int


class TraceStep(TypedDict):
    """One step of the answer's trace (a model call and what its plan did)."""
    step: int
    screenshot: ScreenshotRef
    error: NotRequired[str]
    model_latency_ms: NotRequired[float]
    usage: NotRequired[Usage]
    message: NotRequired[str | None]
    actions: NotRequired[list[TracedAction]]
    overhead_ms: NotRequired[float]
    settled: NotRequired[SettledJson]


def screenshot_ref(png: bytes, step: int) -> ScreenshotRef:
    return {"step": step, "sha256": hashlib.sha256(png).hexdigest(), "bytes": len(png)}


async def execute(xs: BackendService, display: Display, planned: PlannedAction, where: str) -> Executed:
    """One planned action through its format's executor (validated as its endpoint validates);
    ``clicks``: the left clicks it gave a page, for the settle's browser evidence."""
    fmt = FORMATS[planned.executor]
    act = fmt.action.validate(planned.action, where)
    started = time.monotonic()
    server = server_side(fmt)
    done = await server.perform(xs, display, act, where)
    return {"executed": done.executed, "text": done.text, "clicks": server.clicks([act], started)}


async def vision_act(request: web.Request, body: VisionAct) -> web.Response:
    models: VisionModels = request.app[app_keys.VISION_MODELS]
    model = models.pick(body["model"])
    if model is None:
        known = ", ".join(models.models) or "none"
        raise ApiError(503, "no_vision_model",
                       f"no vision model {'named ' + repr(body['model']) if body['model'] else 'configured as the default'}"
                       f" (configured: {known}); set DESKTOPD_VISION_MODELS to a models file (docs/vision.md)")
    xs = backend_service(request)
    screen = await xs.screen_size()
    advertised = (model.display_width_px or screen[0], model.display_height_px or screen[1])
    display = Display(screen, advertised)
    capture = model_screenshot(xs, display)
    budget = body["budget"] or {"tokens": None, "seconds": None}
    started = time.monotonic()
    trace: list[TraceStep] = []
    used: Usage = {"input_tokens": 0, "output_tokens": 0}
    status, detail, message = "max_steps", None, None
    timeout = aiohttp.ClientTimeout(total=min(MODEL_CALL_TIMEOUT_S, budget["seconds"] or MODEL_CALL_TIMEOUT_S))
    async with aiohttp.ClientSession(timeout=timeout) as http:
        planner = planner_for(http, model, display, body["instruction"])
        png = await capture()
        outcomes: list[Outcome] = []
        for step in range(body["max_steps"]):
            step_started = time.monotonic()
            left = None if budget["seconds"] is None else budget["seconds"] - (time.monotonic() - started)
            try:
                # The time budget bounds the model call too, not only the steps between calls.
                plan: Plan = await asyncio.wait_for(planner.plan(png, outcomes), left)
            except (MalformedPlan, aiohttp.ClientError, TimeoutError) as exc:
                if budget["seconds"] is not None and time.monotonic() - started >= budget["seconds"]:
                    status, detail = "time_budget", f"the model did not answer within the {budget['seconds']} s budget"
                else:
                    status, detail = "malformed_plan", f"{type(exc).__name__}: {exc}"
                trace.append({"step": step, "screenshot": screenshot_ref(png, step), "error": detail})
                break
            used["input_tokens"] += plan.input_tokens
            used["output_tokens"] += plan.output_tokens
            actions: list[TracedAction] = []
            entry: TraceStep = {"step": step, "screenshot": screenshot_ref(png, step),
                                "model_latency_ms": round(plan.latency_ms, 1),
                                "usage": {"input_tokens": plan.input_tokens, "output_tokens": plan.output_tokens},
                                "message": plan.message, "actions": actions}
            trace.append(entry)
            message = plan.message or message
            if plan.done:
                status = "done"
                break
            outcomes = []
            clicks: list[Clicks | None] = []
            for i, planned in enumerate(plan.actions):
                try:
                    done = await execute(xs, display, planned, f"trace[{step}].actions[{i}]")
                except ApiError as exc:
                    # The model's action is invalid (422 off screen, unknown key...): it hears why.
                    outcomes.append(Outcome(planned, error=str(exc.detail)))
                    actions.append({"action": planned.action, "error": str(exc.detail)})
                    continue
                outcomes.append(Outcome(planned, text=done["text"]))
                clicks.append(done["clicks"])
                actions.append({"action": planned.action, "executed": done["executed"]})
            if all(o.error for o in outcomes):
                status, detail = "malformed_plan", "no action of the plan could run: " + \
                    "; ".join(str(o.error) for o in outcomes)
                break
            mark = await settler(request).mark()
            # A plan of one click asks the page too, as the vendor endpoints do.
            png, settled = await settled_capture(settler(request), mark,
                                                 SettleSpec(DEFAULT_MAX_S, DEFAULT_QUIET_S), capture,
                                                 clicks[0] if len(plan.actions) == 1 and clicks else None)
            # The loop's own share of the step: everything but the model's answer.
            entry["overhead_ms"] = round((time.monotonic() - step_started) * 1000 - plan.latency_ms, 1)
            entry["settled"] = settled.json()
            if budget["tokens"] is not None and used["input_tokens"] + used["output_tokens"] >= budget["tokens"]:
                status, detail = "token_budget", f"{used['input_tokens'] + used['output_tokens']} tokens used"
                break
            if budget["seconds"] is not None and time.monotonic() - started >= budget["seconds"]:
                status, detail = "time_budget", f"{time.monotonic() - started:.1f} s spent"
                break
    return web.json_response({
        "status": status, "detail": detail, "message": message, "steps": len(trace),
        "model": {"name": model.name, "api": model.api, "model": model.model},
        "usage": used, "trace": trace, **display.describe(),
        "final_screenshot": {"media_type": "image/png", "data": b64(png), "sha256": hashlib.sha256(png).hexdigest()}})
