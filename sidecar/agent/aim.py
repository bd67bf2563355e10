"""Where to act on an element of the tab's own document without reading the whole tab.

One in-page call measures the element's boxes (getClientRects: one per line of a wrapped link)
clipped to the visible viewport, takes the centre of the largest visible one, asks the browser
what a click there would hit (elementFromPoint, in the element's own shadow root when it has
one), and reads the window's geometry; with Page.getLayoutMetrics that gives the view (the
viewport's place on the screen, the device pixel ratio, page zoom) as /layout's screen boxes use
it. Nothing of /layout's change tracking is touched. Elements in iframes, and any element that is not
visible or would not be hit there (covered by a sticky header, a checkbox under its label), take
the whole /layout read instead (resolve.element_node), which explains why.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..layout.answer import view_of
from ..layout.probe import parse_probe
from .resolve import Element

# {x, y} (CSS px from the visual viewport's top-left) or null. Scrolls the element to the middle
# first when no part of it can be hit where it is, instantly (a page's smooth scrolling would move
# it after it was measured).
_MEASURE = """function () {
  const measure = () => {
    const vv = window.visualViewport;
    const left = vv ? vv.offsetLeft : 0, top = vv ? vv.offsetTop : 0;
    const right = left + (vv ? vv.width : innerWidth), bottom = top + (vv ? vv.height : innerHeight);
    let best = null;
    for (const r of this.getClientRects()) {
      const l = Math.max(r.left, left), t = Math.max(r.top, top);
      const rr = Math.min(r.right, right), b = Math.min(r.bottom, bottom);
      if (rr - l < 1 || b - t < 1) continue;
      const area = (rr - l) * (b - t);
      if (!best || area > best.area) best = {x: (l + rr) / 2, y: (t + b) / 2, area};
    }
    if (!best) return null;
    const root = this.getRootNode();
    const hit = (root && root.elementFromPoint ? root : document).elementFromPoint(best.x, best.y);
    if (!hit || !(hit === this || this.contains(hit))) return null;
    return {x: best.x - left, y: best.y - top};
  };
  let point = measure();
  if (!point) {
    this.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
    point = measure();
  }
  if (!point) return null;
  // The window's geometry, as /layout's probe reads it (here without its change tracking).
  const de = document.documentElement;
  point.window = {screenX, screenY, outerWidth, outerHeight, innerWidth, innerHeight,
                  dpr: devicePixelRatio, clientWidth: de ? de.clientWidth : innerWidth,
                  clientHeight: de ? de.clientHeight : innerHeight};
  return point;
}"""


@dataclass(frozen=True)
class Aim:
    viewport: tuple[float, float]     # CSS px from the visual viewport's top-left
    screen: tuple[int, int]           # desktop pixels


async def quick_aim(element: Element, main_frame_id: str, timeout: float) -> Aim | None:
    """The point to act at, the element scrolled into view if need be; None when the whole read
    must decide (see the module)."""
    if element.session is not element.page or element.key.frame_id != main_frame_id:
        return None
    point, metrics = await asyncio.gather(
        element.call(_MEASURE, timeout=timeout),
        element.page.send("Page.getLayoutMetrics", timeout=timeout))
    if not point:
        return None
    window = parse_probe({"result": {"value": point["window"]}})
    view = view_of(window, metrics)
    scale = view.pinch_scale * view.device_pixel_ratio
    x, y = float(point["x"]), float(point["y"])
    return Aim((x, y), (round(view.origin_x + x * scale), round(view.origin_y + y * scale)))
