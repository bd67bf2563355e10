"""The vision routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body, with_query

from . import act, handlers, models

ROUTES: list[Route] = [
    Route("GET", "/api/v1/vision/text", with_query(models.TEXT_QUERY, handlers.vision_text),
          "The text on the screen (or a region, or one window), read from its pixels (OCR)", "vision",
          concurrency=4,   # OCR reads one image at a time: a longer queue only grows latency
          not_found=True,
          returns=models.TEXT_RESULT,
          description="Lines and words with boxes and centres in screen pixels (the space of "
                      "/api/v1/tablet and /accessibility) and the engine's confidence; for canvas, "
                      "images of text and apps without a tree. The engine is Tesseract's English line "
                      "model run by ONNX Runtime; without it Tesseract reads alone and engine.fallback "
                      "says why. 503 ocr_unavailable when the image has no OCR engine (the desktop "
                      "image: it ships in the Chromium one)."),
    Route("POST", "/api/v1/vision/click", with_body(models.CLICK_BODY, handlers.vision_click),
          "Click visible text: find its words on the screen and click their centre", "vision",
          concurrency=4,
          not_found=True, extra_errors=(409,),
          returns=models.CLICK_RESULT,
          description="Acts on the VISIBLE desktop. 404 text_not_found lists the closest texts, 409 "
                      "ambiguous_text lists every match (with boxes): never a guess."),
    Route("POST", "/api/v1/vision/fill", with_body(models.FILL_BODY, handlers.vision_fill),
          "Type into the field beside a visible label", "vision",
          concurrency=4,
          not_found=True, extra_errors=(409,),
          returns=models.FILL_RESULT,
          description="Acts on the VISIBLE desktop: finds the label's words, the field's edge to "
                      "their right (else below), clicks inside it, selects all (clear) and types. "
                      "404/409 as /vision/click."),
    Route("POST", "/api/v1/vision/act", with_body(act.ACT_BODY, act.vision_act),
          "Let a configured vision model do a task on the VISIBLE desktop", "vision",
          concurrency=4,
          returns=act.ACT_RESULT,
          description="Screenshot, the model's plan (Anthropic computer tool, OpenAI "
                      "computer_use_preview or a chat grounding model, per DESKTOPD_VISION_MODELS), "
                      "its actions through /computer/*'s executors, until done or a budget "
                      "(max_steps, budget.tokens, budget.seconds) ends it; answers the trace and "
                      "the final screenshot. 503 no_vision_model without a configured model. "
                      "Closing the request cancels the loop."),
]
