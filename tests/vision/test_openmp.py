"""Tesseract reads on our worker threads alone, in the interpreter the images run (Debian's
python3, whose Pillow loads libgomp before desktopd's OCR can set OMP_THREAD_LIMIT): no OpenMP
team threads appear beside them, which spun on the shared cores and cost 7x the CPU."""

from __future__ import annotations

import ctypes.util
import json
import subprocess
from pathlib import Path

from testbed.capability import debian_python_has, require

ROOT = Path(__file__).resolve().parents[2]
READ_ON_ONE_WORKER = """
import json, os
from PIL import Image, ImageDraw   # first, as desktopd does
from desktopd.vision.tesseract import TesseractEngine
image = Image.new("RGB", (400, 60), "white")
ImageDraw.Draw(image).text((10, 20), "Threads of one reading", fill="black")
engine = TesseractEngine(workers=1)
lines = engine.read(image)
print(json.dumps({"text": [line.text for line in lines], "threads": len(os.listdir("/proc/self/task"))}))
"""


def test_a_read_runs_on_the_calling_thread_and_one_worker_only():
    require(debian_python_has("PIL"), "/usr/bin/python3 with Pillow (python3-pil)")
    require(ctypes.util.find_library("tesseract") is not None, "libtesseract (Debian: libtesseract5)")
    done = subprocess.run(["/usr/bin/python3", "-c", READ_ON_ONE_WORKER], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["text"] == ["Threads of one reading"]
    assert answer["threads"] == 2, answer   # the interpreter's own and the pool's one worker
