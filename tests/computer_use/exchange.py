"""What the computer-use tests share: posting one action and decoding the PNG it answers with."""

from __future__ import annotations

import base64
import io

from PIL import Image

# X's modifier bits in a recorded event's state.
CONTROL_MASK, SHIFT_MASK = 4, 1


def post_action(desktopd, path: str, body: dict, query: str, status: int) -> dict:
    resp = desktopd.request("POST", path + query, json=body)
    assert resp.status_code == status, resp.text
    return resp.json()


def png(data: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(data)))
