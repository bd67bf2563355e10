"""A small Tk window that records what it receives, for desktopd's integration tests.

Window at +100+100 (no window manager in these tests: the position is exact): a red 100x50
frame on top (known pixels for screenshots), a Text widget below that records keys and pointer
events. Prints one JSON object per event on stdout; "ready" once mapped and focused. Reads
commands on stdin: "text" prints the Text's content.
"""

import json
import sys
import tkinter as tk


def emit(**fields):
    print(json.dumps(fields), flush=True)


root = tk.Tk()
root.title(sys.argv[1] if len(sys.argv) > 1 else "recorder")
root.geometry("400x300+100+100")
root.configure(bg="#0000ff")
tk.Frame(root, bg="#ff0000", width=100, height=50).place(x=0, y=0)
text = tk.Text(root, bg="#00ff00", bd=0, highlightthickness=0)
text.place(x=0, y=100, width=400, height=200)

# Bound on the toplevel: it is in every child's bindtags, so each event is reported once.
root.bind("<ButtonPress>", lambda e: emit(ev="press", b=e.num, x=e.x_root, y=e.y_root))
root.bind("<ButtonRelease>", lambda e: emit(ev="release", b=e.num, x=e.x_root, y=e.y_root))
root.bind("<B1-Motion>", lambda e: emit(ev="drag", x=e.x_root, y=e.y_root))
root.bind("<KeyPress>", lambda e: emit(ev="key", keysym=e.keysym, state=e.state))


def on_stdin(fh, mask):
    line = sys.stdin.readline()
    if not line:
        root.destroy()
    elif line.strip() == "text":
        # A round trip first: every event the server sent before it is then in Tk's queue,
        # and update() handles them, so the text includes everything typed so far.
        root.winfo_pointerxy()
        root.update()
        emit(ev="text", text=text.get("1.0", "end-1c"))


root.tk.createfilehandler(sys.stdin, tk.READABLE, on_stdin)


def ready(_event=None):
    if getattr(ready, "done", False):
        return
    ready.done = True
    text.focus_force()
    root.update_idletasks()
    emit(ev="ready", id=root.winfo_id(), frame=int(root.wm_frame(), 16))


text.bind("<Map>", lambda e: root.after_idle(ready), add="+")  # MapNotify: it is on screen now
root.mainloop()
