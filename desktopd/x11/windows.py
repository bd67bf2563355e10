"""Top-level windows: the EWMH view when a window manager provides one, else the root's mapped
children; and window actions, through the WM's protocols when it has them.

A window is described as::

    {"id": int (client window), "frame_id": int, "title": str, "wm_class": [instance, class],
     "pid": int | None, "desktop": int | None, "stacking": int (0 = bottom),
     "focused": bool, "minimized": bool, "maximized": bool, "visible": bool,
     "window_type": str (EWMH's, lower case: "normal", "dialog", "utility", ...),
     "transient_for": int | None (the window a dialog belongs to),
     "frame":  {"x", "y", "width", "height", "space": "screen"},   # with decorations
     "client": {"x", "y", "width", "height", "space": "screen"}}   # the app's own area

Without a window manager (``managed`` false in ``wm_info``) actions degrade: focus is
set_input_focus + raise (+ map if unmapped), minimize unmaps, maximize resizes to the screen,
close uses WM_DELETE_WINDOW or destroys the window.
"""

from __future__ import annotations

from Xlib import X, Xatom, error as xerror
from Xlib.protocol import event as xevent

from desktopd_contract.windows import Bounds, WindowActionResult, WindowInfo
from httpapi.json_types import JSONObject

from .errors import WindowNotFound
from .window_waits import settled_window, wait_gone

ICONIC_STATE, NORMAL_STATE = 3, 1
SOURCE_PAGER = 2  # EWMH source indication: we act for the user, like a pager/taskbar
_NET_WM_STATE_REMOVE, _NET_WM_STATE_ADD = 0, 1
ACTIONS = ("focus", "close", "move", "resize", "minimize", "maximize", "restore")
WINDOW_TYPE_PREFIX = "_NET_WM_WINDOW_TYPE_"


def _bounds(x: int, y: int, width: int, height: int) -> Bounds:
    return {"x": int(x), "y": int(y), "width": int(width), "height": int(height), "space": "screen"}


class Windows:
    def __init__(self, xdisplay, on_event=None) -> None:
        self._dpy = xdisplay
        self._on_event = on_event  # events we read while waiting go on to (e.g.) the keyboard
        self._root = xdisplay.screen().root
        self._atoms: dict[str, int] = {}
        self._atom_names: dict[int, str] = {}
        # Without a WM we play its part for maximize/restore: the geometry to go back to.
        self._unmaximized: dict[int, tuple[int, int, int, int]] = {}

    def _atom(self, name: str) -> int:
        atom = self._atoms.get(name)
        if atom is None:
            atom = self._atoms[name] = self._dpy.intern_atom(name)
        return atom

    def _prop(self, window, name: str, kind: int = X.AnyPropertyType):
        try:
            prop = window.get_full_property(self._atom(name), kind)
        except xerror.XError:
            return None
        return prop.value if prop is not None else None

    # ------------------------------------------------------------------ window manager
    def wm_info(self) -> JSONObject:
        """Which WM (if any) is running and what it supports (EWMH's check window)."""
        check = self._prop(self._root, "_NET_SUPPORTING_WM_CHECK", Xatom.WINDOW)
        if not check:
            return {"managed": False, "name": None, "windows": len(self._client_ids()), "active": None}
        wm = self._dpy.create_resource_object("window", int(check[0]))
        name = self._prop(wm, "_NET_WM_NAME")
        return {"managed": True,
                "name": bytes(name).decode("utf-8", "replace") if name is not None else None,
                "windows": len(self._client_ids()), "active": self._active_window()}

    def _supported(self) -> set[int]:
        value = self._prop(self._root, "_NET_SUPPORTED", Xatom.ATOM)
        # Only believe _NET_SUPPORTED while a WM is actually running (it can outlive the WM).
        if value is None or not self._prop(self._root, "_NET_SUPPORTING_WM_CHECK", Xatom.WINDOW):
            return set()
        return set(int(v) for v in value)

    def _supports(self, name: str) -> bool:
        return self._atom(name) in self._supported()

    # ------------------------------------------------------------------------- listing
    def _client_ids(self) -> list[int]:
        """Top-level client windows, bottom to top."""
        if self._prop(self._root, "_NET_SUPPORTING_WM_CHECK", Xatom.WINDOW):
            stacking = self._prop(self._root, "_NET_CLIENT_LIST_STACKING", Xatom.WINDOW)
            if stacking is None:
                stacking = self._prop(self._root, "_NET_CLIENT_LIST", Xatom.WINDOW)
            if stacking is not None:
                return [int(w) for w in stacking]
        ids = []
        for child in self._root.query_tree().children:  # query_tree: bottom-to-top order
            try:
                attrs = child.get_attributes()
            except xerror.XError:
                continue
            if attrs.override_redirect or attrs.win_class == X.InputOnly:
                continue
            # Mapped windows, and ones we (or a WM) iconified: they keep WM_STATE.
            if attrs.map_state == X.IsViewable or self._prop(child, "WM_STATE") is not None:
                ids.append(child.id)
        return ids

    def list(self) -> list[WindowInfo]:
        ids = self._client_ids()
        active = self._active_window()
        current_desktop = self._prop(self._root, "_NET_CURRENT_DESKTOP", Xatom.CARDINAL)
        current = int(current_desktop[0]) if current_desktop else None
        windows = []
        for index, wid in enumerate(ids):
            try:
                windows.append(self._describe(wid, index, active, current))
            except xerror.XError:
                continue  # the window went away while we looked
        return windows

    def _active_window(self) -> int | None:
        value = self._prop(self._root, "_NET_ACTIVE_WINDOW", Xatom.WINDOW)
        if value and int(value[0]) and self._prop(self._root, "_NET_SUPPORTING_WM_CHECK"):
            return int(value[0])
        focus = self._dpy.get_input_focus().focus
        if isinstance(focus, int):  # X.NONE or X.PointerRoot: no window holds the focus itself
            if focus == X.PointerRoot:  # keys go to the window under the pointer
                child = self._root.query_pointer().child
                return child.id if child else None
            return None
        try:
            return self._toplevel_of(focus.id)
        except xerror.XError:
            return None  # the focused window went away while we looked (e.g. it is closing)

    def _toplevel_of(self, wid: int) -> int:
        window = self._dpy.create_resource_object("window", wid)
        while True:
            parent = window.query_tree().parent
            # python-xlib gives the int 0 (None) as the root's parent, else a Window.
            if isinstance(parent, int) or parent.id == self._root.id:
                return window.id
            window = parent

    def _title(self, window) -> str:
        name = self._prop(window, "_NET_WM_NAME", self._atom("UTF8_STRING"))
        if name is not None:
            return bytes(name).decode("utf-8", "replace") if not isinstance(name, str) else name
        prop = None
        try:
            prop = window.get_full_property(Xatom.WM_NAME, X.AnyPropertyType)
        except xerror.XError:
            pass
        if prop is None:
            return ""
        value = prop.value if isinstance(prop.value, bytes) else bytes(prop.value)
        return value.decode("latin-1" if prop.property_type == Xatom.STRING else "utf-8", "replace")

    def _describe(self, wid: int, index: int, active: int | None,
                  current_desktop: int | None) -> WindowInfo:
        window = self._dpy.create_resource_object("window", wid)
        geometry = window.get_geometry()
        origin = window.translate_coords(self._root, 0, 0)
        # translate_coords(src=root) gives root->window; negate for the window's screen origin.
        x, y = -origin.x, -origin.y
        client = _bounds(x, y, geometry.width, geometry.height)
        frame_id = self._toplevel_of(wid)
        extents = self._prop(window, "_NET_FRAME_EXTENTS", Xatom.CARDINAL)
        if extents is not None and len(extents) == 4:
            left, right, top, bottom = (int(v) for v in extents)
            frame = _bounds(x - left, y - top, geometry.width + left + right,
                            geometry.height + top + bottom)
        elif frame_id != wid:
            frame_window = self._dpy.create_resource_object("window", frame_id)
            fg = frame_window.get_geometry()
            frame = _bounds(fg.x, fg.y, fg.width + 2 * fg.border_width,
                            fg.height + 2 * fg.border_width)
        else:
            frame = client.copy()
        wm_class = window.get_wm_class()
        pid = self._prop(window, "_NET_WM_PID", Xatom.CARDINAL)
        desktop = self._prop(window, "_NET_WM_DESKTOP", Xatom.CARDINAL)
        states = set(int(v) for v in (self._prop(window, "_NET_WM_STATE", Xatom.ATOM) or ()))
        wm_state = self._prop(window, "WM_STATE")
        minimized = (self._atom("_NET_WM_STATE_HIDDEN") in states
                     or (wm_state is not None and len(wm_state) and int(wm_state[0]) == ICONIC_STATE))
        maximized = {self._atom("_NET_WM_STATE_MAXIMIZED_VERT"),
                     self._atom("_NET_WM_STATE_MAXIMIZED_HORZ")} <= states
        desktop_no = int(desktop[0]) if desktop else None
        on_current = (desktop_no is None or current_desktop is None or desktop_no == current_desktop
                      or desktop_no == 0xFFFFFFFF)
        mapped = window.get_attributes().map_state == X.IsViewable
        transient_for = self._prop(window, "WM_TRANSIENT_FOR", Xatom.WINDOW)
        owner = int(transient_for[0]) if transient_for is not None and len(transient_for) else None
        return {
            "id": wid,
            "frame_id": frame_id,
            "title": self._title(window),
            "wm_class": list(wm_class) if wm_class else None,
            "pid": int(pid[0]) if pid else None,
            "desktop": desktop_no,
            "stacking": index,
            "focused": active is not None and active in (wid, frame_id),
            "minimized": bool(minimized),
            "maximized": bool(maximized),
            "visible": bool(mapped and not minimized and on_current),
            "window_type": self._window_type(window, owner),
            "transient_for": owner or None,
            "frame": frame,
            "client": client,
        }

    def _window_type(self, window, transient_for: int | None) -> str:
        """The first of _NET_WM_WINDOW_TYPE's types, lower case without EWMH's prefix; without
        one, what EWMH says to assume: a dialog for a transient window, else normal."""
        types = self._prop(window, "_NET_WM_WINDOW_TYPE", Xatom.ATOM)
        if types is None or not len(types):
            return "dialog" if transient_for else "normal"
        name = self._atom_name(int(types[0]))
        return name.removeprefix(WINDOW_TYPE_PREFIX).lower()

    def _atom_name(self, atom: int) -> str:
        name = self._atom_names.get(atom)
        if name is None:
            name = self._atom_names[atom] = self._dpy.get_atom_name(atom)
        return name

    def get(self, wid: int) -> WindowInfo:
        for info in self.list():
            if info["id"] == wid or info["frame_id"] == wid:
                return info
        raise WindowNotFound(wid)

    # ------------------------------------------------------------------------- actions
    def _client_message(self, window, type_name: str, data: list[int], *, to_root: bool = True):
        data = (list(data) + [0] * 5)[:5]
        message = xevent.ClientMessage(window=window, client_type=self._atom(type_name),
                                       data=(32, data))
        target = self._root if to_root else window
        mask = (X.SubstructureRedirectMask | X.SubstructureNotifyMask) if to_root else 0
        target.send_event(message, event_mask=mask)

    def act(self, wid: int, action: str, **params: float) -> WindowActionResult:
        if action not in ACTIONS:
            raise ValueError(f"action: unknown window action {action!r}; one of {', '.join(ACTIONS)}")
        info = self.get(wid)  # WindowNotFound for anything not top-level
        wid = info["id"]
        window = self._dpy.create_resource_object("window", wid)
        managed = bool(self._prop(self._root, "_NET_SUPPORTING_WM_CHECK", Xatom.WINDOW))
        method = getattr(self, f"_do_{action}")
        result = method(window, info, managed, **params)
        self._dpy.sync()
        if action == "close":
            return {"id": wid, "action": action, "method": result,
                    "closed": wait_gone(self._dpy, wid, self.list, self._on_event)}
        done = settled_window(self._dpy, wid, action, params, self.get, self._on_event)
        return {"id": wid, "action": action, "method": result, "window": done}

    def _do_focus(self, window, info, managed: bool) -> str:
        if managed and self._supports("_NET_ACTIVE_WINDOW"):
            self._client_message(window, "_NET_ACTIVE_WINDOW", [SOURCE_PAGER, X.CurrentTime, 0])
            return "_NET_ACTIVE_WINDOW"
        if window.get_attributes().map_state != X.IsViewable:
            self._set_wm_state(window, NORMAL_STATE)
            window.map()
        window.configure(stack_mode=X.Above)
        window.set_input_focus(X.RevertToParent, X.CurrentTime)
        return "set_input_focus"

    def _do_close(self, window, info, managed: bool, force: bool = False) -> str:
        if force:
            window.kill_client()
            return "kill_client"
        if managed and self._supports("_NET_CLOSE_WINDOW"):
            self._client_message(window, "_NET_CLOSE_WINDOW", [X.CurrentTime, SOURCE_PAGER])
            return "_NET_CLOSE_WINDOW"
        protocols = window.get_wm_protocols() or []
        if self._atom("WM_DELETE_WINDOW") in protocols:
            message = xevent.ClientMessage(window=window, client_type=self._atom("WM_PROTOCOLS"),
                                           data=(32, [self._atom("WM_DELETE_WINDOW"),
                                                      X.CurrentTime, 0, 0, 0]))
            window.send_event(message)
            return "WM_DELETE_WINDOW"
        window.destroy()
        return "destroy"

    def _int_param(self, params: dict, name: str, *, minimum: int | None = None) -> int:
        if name not in params:
            raise ValueError(f"{name}: required")
        value = params[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            raise ValueError(f"{name}: expected an integer, got {value!r}")
        if minimum is not None and value < minimum:
            raise ValueError(f"{name}: must be >= {minimum}, got {value}")
        return int(value)

    def _moveresize(self, window, managed: bool, x=None, y=None, width=None, height=None) -> str:
        if managed and self._supports("_NET_MOVERESIZE_WINDOW"):
            flags = ((x is not None) << 8 | (y is not None) << 9 | (width is not None) << 10
                     | (height is not None) << 11 | SOURCE_PAGER << 12)
            # Gravity 1 (NorthWest): x/y place the frame's outer top-left corner.
            self._client_message(window, "_NET_MOVERESIZE_WINDOW",
                                 [flags | 1, x or 0, y or 0, width or 0, height or 0])
            return "_NET_MOVERESIZE_WINDOW"
        changes = {k: v for k, v in (("x", x), ("y", y), ("width", width), ("height", height))
                   if v is not None}
        window.configure(**changes)
        return "configure"

    def _do_move(self, window, info, managed: bool, **params) -> str:
        x, y = self._int_param(params, "x"), self._int_param(params, "y")
        if not managed and info["frame_id"] != info["id"]:
            window = self._dpy.create_resource_object("window", info["frame_id"])
        return self._moveresize(window, managed, x=x, y=y)

    def _do_resize(self, window, info, managed: bool, **params) -> str:
        width = self._int_param(params, "width", minimum=1)
        height = self._int_param(params, "height", minimum=1)
        return self._moveresize(window, managed, width=width, height=height)

    def _set_state(self, window, how: int, *names: str) -> None:
        atoms = [self._atom(n) for n in names] + [0, 0]
        self._client_message(window, "_NET_WM_STATE", [how, atoms[0], atoms[1], SOURCE_PAGER])

    def _do_minimize(self, window, info, managed: bool) -> str:
        if managed:
            # ICCCM iconify request; every EWMH WM honours it (there is no _NET_ message to add
            # _NET_WM_STATE_HIDDEN: that state is the WM's to set).
            self._client_message(window, "WM_CHANGE_STATE", [ICONIC_STATE])
            return "WM_CHANGE_STATE"
        self._set_wm_state(window, ICONIC_STATE)  # what a WM would record; keeps it listed
        window.unmap()
        return "unmap"

    def _set_wm_state(self, window, state: int) -> None:
        atom = self._atom("WM_STATE")
        window.change_property(atom, atom, 32, [state, X.NONE])

    def _do_maximize(self, window, info, managed: bool) -> str:
        if managed and self._supports("_NET_WM_STATE"):
            self._set_state(window, _NET_WM_STATE_ADD, "_NET_WM_STATE_MAXIMIZED_VERT",
                            "_NET_WM_STATE_MAXIMIZED_HORZ")
            return "_NET_WM_STATE"
        screen = self._dpy.screen()
        client = info["client"]
        self._unmaximized[info["id"]] = (client["x"], client["y"], client["width"], client["height"])
        window.configure(x=0, y=0, width=screen.width_in_pixels, height=screen.height_in_pixels)
        return "configure"

    def _do_restore(self, window, info, managed: bool) -> str:
        if managed and self._supports("_NET_WM_STATE"):
            if info["maximized"]:
                self._set_state(window, _NET_WM_STATE_REMOVE, "_NET_WM_STATE_MAXIMIZED_VERT",
                                "_NET_WM_STATE_MAXIMIZED_HORZ")
            if info["minimized"]:
                self._client_message(window, "_NET_ACTIVE_WINDOW", [SOURCE_PAGER, X.CurrentTime, 0])
            return "_NET_WM_STATE"
        if info["minimized"] or not info["visible"]:
            self._set_wm_state(window, NORMAL_STATE)
            window.map()
        saved = self._unmaximized.pop(info["id"], None)
        if saved is not None:
            x, y, width, height = saved
            window.configure(x=x, y=y, width=width, height=height)
        return "configure/map"
