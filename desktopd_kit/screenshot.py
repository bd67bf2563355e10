"""A screenshot as desktopd returns it: the encoded bytes plus the headers that map its pixels
back to screen pixels."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .calls import Reply

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image


@dataclass(frozen=True)
class Screenshot:
    data: bytes
    format: str                                  # png, jpeg, webp or raw (BGRX rows)
    width: int                                   # image pixels
    height: int
    scale: float                                 # screen_x = region_x + image_x / scale
    region: tuple[int, int, int, int]            # captured screen rectangle x, y, width, height
    screen_size: tuple[int, int]
    scale_y: float | None = None                 # screen_y = region_y + image_y / scale_y; None: scale

    @classmethod
    def from_reply(cls, reply: Reply, format: str) -> Screenshot:
        h = {k.lower(): v for k, v in reply.headers.items()}
        x, y, width, height = (int(p) for p in h["x-region"].split(","))
        return cls(reply.body, format, int(h["x-image-width"]), int(h["x-image-height"]),
                   float(h["x-scale"]), (x, y, width, height),
                   (int(h["x-screen-width"]), int(h["x-screen-height"])),
                   float(h["x-scale-y"]) if "x-scale-y" in h else None)

    @classmethod
    def from_step(cls, shot: dict, format: str) -> Screenshot:
        """The ``screenshot`` of a POST /api/v1/step answer."""
        import base64
        r = shot["region"]
        return cls(base64.b64decode(shot["data"]), format, int(shot["width"]), int(shot["height"]),
                   float(shot["scale"]), (int(r["x"]), int(r["y"]), int(r["width"]), int(r["height"])),
                   (int(shot["screen"]["width"]), int(shot["screen"]["height"])),
                   float(shot["scale_y"]) if "scale_y" in shot else None)

    def image(self) -> Image.Image:
        """A Pillow image (RGB)."""
        from PIL import Image
        if self.format == "raw":
            return Image.frombuffer("RGB", (self.width, self.height), self.data, "raw", "BGRX", 0, 1)
        image = Image.open(io.BytesIO(self.data))
        # A JPEG is RGB already: convert() would copy the decoded image once more.
        return image if image.mode == "RGB" else image.convert("RGB")

    def array(self) -> np.ndarray:
        """Height x width x 3 uint8 RGB."""
        import numpy as np
        if self.format == "raw":
            return np.frombuffer(self.data, np.uint8).reshape(self.height, self.width, 4)[..., 2::-1].copy()
        return np.asarray(self.image(), dtype=np.uint8)

    def to_screen(self, x: float, y: float) -> tuple[int, int]:
        """Screen pixels of an image pixel (what desktopd's pointer endpoints take)."""
        return (round(self.region[0] + x / self.scale), round(self.region[1] + y / self.y_scale))

    @property
    def y_scale(self) -> float:
        """The factor of y (the same as ``scale`` unless the image's aspect was changed)."""
        return self.scale if self.scale_y is None else self.scale_y

    def png(self) -> bytes:
        """The image as PNG (the bytes themselves when it already is one)."""
        if self.format == "png":
            return self.data
        out = io.BytesIO()
        self.image().save(out, "PNG", compress_level=1)
        return out.getvalue()
