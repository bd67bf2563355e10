"""A Tk window showing a PNG at a given place (no window manager on the test display: the window
sits exactly there), for OCR tests of text in an image. Run with Debian's python3:
    image_window.py IMAGE.png X Y TITLE
Prints {"ready": true} once the window is mapped and drawn."""

import json
import sys
import tkinter

path, x, y, title = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
root = tkinter.Tk()
root.title(title)
photo = tkinter.PhotoImage(file=path)
label = tkinter.Label(root, image=photo, borderwidth=0, highlightthickness=0, padx=0, pady=0)
label.pack()
root.geometry(f"{photo.width()}x{photo.height()}+{x}+{y}")
root.wait_visibility(label)
root.update()
print(json.dumps({"ready": True}), flush=True)
# Ends when stdin closes (Recorder.stop closes it), as testbed's recorders do: without it the
# stop waited its 10 s for an exit before killing the window.
root.tk.createfilehandler(sys.stdin, tkinter.READABLE, lambda fh, mask: sys.stdin.readline() or root.destroy())
root.mainloop()
