"""A real X client for the integration tests: a Tk window at a known place and colour that
prints every key, button, wheel and motion event it receives as one JSON line on stdout.

Run: python3 recorder.py --geometry 300x200+50+60 --color '#ff0000' --title rec
Prints {"ready": ...} once the window is mapped and has the keyboard focus."""

from __future__ import annotations

import argparse
import json
import sys
import tkinter as tk


def emit(**fields) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--geometry", default="300x200+50+60")
    parser.add_argument("--color", default="#ff0000")
    parser.add_argument("--title", default="recorder")
    parser.add_argument("--class-name", default="DesktopdRecorder")
    args = parser.parse_args()

    root = tk.Tk(className=args.class_name)
    root.title(args.title)
    root.geometry(args.geometry)
    root.configure(background=args.color, cursor="crosshair")

    def on_key(event: tk.Event, kind: str) -> None:
        emit(event=kind, keysym=event.keysym, keysym_num=event.keysym_num, char=event.char,
             state=event.state)

    def on_button(event: tk.Event, kind: str) -> None:
        emit(event=kind, button=event.num, x=event.x_root, y=event.y_root, state=event.state)

    root.bind("<KeyPress>", lambda e: on_key(e, "key_down"))
    root.bind("<KeyRelease>", lambda e: on_key(e, "key_up"))
    root.bind("<ButtonPress>", lambda e: on_button(e, "button_down"))
    root.bind("<ButtonRelease>", lambda e: on_button(e, "button_up"))
    root.bind("<Motion>", lambda e: emit(event="motion", x=e.x_root, y=e.y_root, state=e.state))
    root.bind("<FocusIn>", lambda e: emit(event="focus_in"))
    root.protocol("WM_DELETE_WINDOW", lambda: (emit(event="delete_window"), root.destroy()))

    def ready() -> None:
        root.wait_visibility()
        root.focus_force()
        root.update()
        emit(ready=True, id=root.winfo_id(), frame=int(root.wm_frame(), 16),
             x=root.winfo_rootx(), y=root.winfo_rooty(),
             width=root.winfo_width(), height=root.winfo_height())

    root.after(0, ready)
    root.mainloop()
    emit(event="exit")


if __name__ == "__main__":
    main()
