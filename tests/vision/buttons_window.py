"""A Tk window of real buttons with white captions on saturated dark fills (blue, red, green,
purple) below lines of dark text on white, at a given place (no window manager on the test
display). Run with Debian's python3:
    buttons_window.py X Y TITLE
Prints {"ready": true, "buttons": [{"text", "x", "y", "width", "height", "fill"}]} (screen
pixels) once the window is mapped and drawn."""

import json
import sys
import tkinter

x, y, title = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
FILLS = (("Submit", "#1e3a8a"), ("Delete", "#b91c1c"), ("Export", "#166534"), ("Continue", "#6b21a8"),
         ("Upload", "#1d4ed8"), ("Remove", "#991b1b"))
root = tkinter.Tk()
root.title(title)
root.configure(background="white")
for text in ("Choose what happens to the selected invoices of this account.",
             "Every action below applies to all of them at once."):
    tkinter.Label(root, text=text, background="white", foreground="black",
                  font=("DejaVu Sans", 11)).pack(anchor="w", padx=16, pady=4)
row = tkinter.Frame(root, background="white")
row.pack(anchor="w", padx=16, pady=12)
buttons = []
for caption, fill in FILLS:
    button = tkinter.Button(row, text=caption, background=fill, foreground="white",
                            activebackground=fill, font=("DejaVu Sans", 11, "bold"), relief="flat",
                            borderwidth=0, highlightthickness=0, padx=14, pady=7)
    button.pack(side="left", padx=6)
    buttons.append((caption, fill, button))
root.geometry(f"+{x}+{y}")
root.wait_visibility(row)
root.update()
print(json.dumps({"ready": True, "buttons": [
    {"text": caption, "x": b.winfo_rootx(), "y": b.winfo_rooty(), "width": b.winfo_width(),
     "height": b.winfo_height(), "fill": fill} for caption, fill, b in buttons]}), flush=True)
# Ends when stdin closes (Recorder.stop closes it), as testbed's recorders do: without it the
# stop waited its 10 s for an exit before killing the window.
root.tk.createfilehandler(sys.stdin, tkinter.READABLE, lambda fh, mask: sys.stdin.readline() or root.destroy())
root.mainloop()
