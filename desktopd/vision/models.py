"""Request models of /api/v1/vision/*, declared once (validation and OpenAPI)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypedDict

from desktopd.input.models import BUTTONS
from desktopd.screen.models import region_problem
from httpapi.bodies import Typed
from httpapi.fields import Bool, Const, Enum, F, Int, ListOf, Model, Number, Opaque, Str
from httpapi.responses import ResponseModel

DEFAULT_MIN_CONFIDENCE = 0.3

WHERE_FIELDS = [
    F("region", Str(min_length=1, check=region_problem, pattern=r"^\d{1,5},\d{1,5},[1-9]\d{0,4},[1-9]\d{0,4}$"),
      description="Read only this screen-pixel rectangle x,y,width,height (inside the screen)."),
    F("window", Str(min_length=1, max_length=20, pattern=r"^([1-9][0-9]{0,8}|0[xX]0*[1-9a-fA-F][0-9a-fA-F]{0,7})$"),
      description="Read only this top-level window's area (an X window id from /api/v1/tree, "
                  "decimal or 0x-hex); its part on the screen."),
    F("min_confidence", Number(0.0, 1.0), default=DEFAULT_MIN_CONFIDENCE,
      description="Words the engine is less sure of are left out (0..1)."),
]


def _one_place(q: Mapping[str, object]) -> tuple[str, str] | None:
    if q["region"] is not None and q["window"] is not None:
        return "window", "give region or window, not both"
    return None


class VisionTextQuery(TypedDict):
    """WHERE_FIELDS: where to read, and how sure a word must be."""
    region: str | None
    window: str | None
    min_confidence: float


TEXT_QUERY = Typed(Model("VisionTextQuery", WHERE_FIELDS, check=_one_place), VisionTextQuery)

MATCH_FIELDS = [
    F("exact", Bool(), default=False,
      description="true: the words are the text exactly (case too; punctuation at their ends "
                  "aside). false: they contain it, in any case."),
    F("nth", Int(0, 999), description="Which match, 0 first in reading order (top to bottom, "
                                      "left to right); omitted: exactly one must match (409 otherwise)."),
]

class VisionClick(VisionTextQuery):
    text: str
    exact: bool
    nth: int | None
    button: Literal["left", "middle", "right"]
    clicks: int


CLICK_BODY = Typed(Model("VisionClick", [
    F("text", Str(min_length=1, max_length=500), required=True,
      description="The visible text to click: one word or several consecutive words of a line."),
    *MATCH_FIELDS,
    F("button", Enum(BUTTONS), default="left"),
    F("clicks", Int(1, 3), default=1, description="2: a double click."),
    *WHERE_FIELDS,
], check=_one_place), VisionClick)

class VisionFill(VisionTextQuery):
    label: str
    text: str
    exact: bool
    nth: int | None
    clear: bool


FILL_BODY = Typed(Model("VisionFill", [
    F("label", Str(min_length=1, max_length=500), required=True,
      description="The visible label of the field (the field is found to its right, else below it)."),
    F("text", Str(max_length=100_000), required=True, description="Typed exactly, any Unicode."),
    *MATCH_FIELDS,
    F("clear", Bool(), default=True, description="Select all (ctrl+a) in the field before typing."),
    *WHERE_FIELDS,
], check=_one_place), VisionFill)

BOX = ResponseModel("ScreenBox", [
    F("x", Int()), F("y", Int()), F("width", Int()), F("height", Int()),
    F("space", Const("screen", typed=False)),
])
POINT = ResponseModel("ScreenPoint", [F("x", Int()), F("y", Int())])
WORD_FIELDS = [F("text", Str()), F("box", BOX), F("center", POINT), F("confidence", Number())]
WORD = ResponseModel("OcrWord", WORD_FIELDS)
LINE = ResponseModel("OcrLine", [*WORD_FIELDS, F("words", ListOf(WORD))])
ENGINE = ResponseModel("OcrEngine", [
    F("name", Str()), F("version", Str()),
    F("fallback", Str(), description="Present when the engine is not the preferred one: why"),
])
TEXT_RESULT = ResponseModel("VisionText", [
    F("lines", ListOf(LINE), required=True, description="Top to bottom."),
    F("region", BOX, required=True),
    F("coordinate_space", Const("screen pixels", typed=False)),
    F("screen", Opaque("object")),
    F("engine", ENGINE), F("read_ms", Number()),
    F("text", Str(), description="The lines' texts, one a line."),
])
CLICK_RESULT = ResponseModel("VisionClicked", [
    F("clicked", POINT), F("match", WORD), F("matches", Int()), F("region", BOX), F("engine", ENGINE),
])
FILL_RESULT = ResponseModel("VisionFilled", [
    F("label", WORD),
    F("field", ResponseModel("VisionField", [
        F("x", Int()), F("y", Int()), F("side", Enum(["right", "below"], typed=False)),
    ])),
    F("typed", Int()), F("region", BOX), F("engine", ENGINE),
])
