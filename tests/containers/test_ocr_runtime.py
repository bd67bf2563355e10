"""The Chromium image carries what desktopd's OCR recogniser runs on (docs/vision.md): ONNX Runtime at
pyproject.toml's `ocr` pin and Debian's numpy, importable by desktopd's interpreter (the system
python3 that start-desktopd execs) as the image's user, with no pip left to fetch anything. A tiny
model, written here as protobuf bytes (no onnx package needed), runs through it."""

from __future__ import annotations

import json
import tomllib

import docker

from .support import LABEL, ROOT

# Run in the image by `python3`, as the image's user; prints what the assertions need as JSON.
PROBE = r'''
import importlib.util, json, os, subprocess, sys
import numpy, onnxruntime

def varint(value):
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)

def number(field, value):      # protobuf wire type 0
    return varint(field << 3) + varint(value)

def nested(field, payload):    # protobuf wire type 2 (bytes, strings, messages)
    return varint(field << 3 | 2) + varint(len(payload)) + payload

def float_vector(name, size):  # ValueInfoProto: name, TypeProto.tensor_type(FLOAT, shape [size])
    dim = nested(1, number(1, size))
    return nested(1, name) + nested(2, nested(1, number(1, 1) + nested(2, dim)))

# ModelProto(ir_version 8, opset 13) of one graph: y = Add(x, x).
add = nested(1, b"x") + nested(1, b"x") + nested(2, b"y") + nested(4, b"Add")
graph = nested(1, add) + nested(2, b"double") + nested(11, float_vector(b"x", 3)) + nested(12, float_vector(b"y", 3))
model = number(1, 8) + nested(7, graph) + nested(8, number(2, 13))

session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
y = session.run(None, {"x": numpy.array([1.0, -2.0, 3.5], dtype=numpy.float32)})[0]
debian_numpy = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "python3-numpy"],
                              capture_output=True, text=True, check=True).stdout
print(json.dumps({
    "uid": os.getuid(), "python": sys.executable, "y": y.tolist(),
    "numpy": numpy.__version__, "numpy_file": numpy.__file__, "debian_numpy": debian_numpy,
    "onnxruntime": onnxruntime.__version__, "pip": importlib.util.find_spec("pip") is not None,
}))
'''


def ocr_pin() -> str:
    with open(ROOT / "pyproject.toml", "rb") as project:
        extra = tomllib.load(project)["project"]["optional-dependencies"]["ocr"]
    [pin] = [requirement for requirement in extra if requirement.startswith("onnxruntime==")]
    return pin.removeprefix("onnxruntime==")


def probe(image: str) -> dict:
    """PROBE's answer from a one-off container of the image (its user and environment, `python3`
    found on its PATH as start-desktopd finds it), removed afterwards."""
    output = docker.from_env().containers.run(image, ["-c", PROBE], entrypoint="python3", remove=True,
                                              labels={LABEL: "1"})
    return json.loads(output)


def test_desktopds_python_runs_an_onnx_model_with_the_pinned_runtime_and_debians_numpy(
        images: dict[str, str]) -> None:
    answer = probe(images["chromium"])
    assert answer["uid"] == 1000 and answer["python"] == "/usr/bin/python3", answer
    assert answer["y"] == [2.0, -4.0, 7.0], answer
    assert answer["onnxruntime"] == ocr_pin(), answer
    # Debian's package (epoch and revision aside: "1:1.24.2-1+deb12u1" is numpy 1.24.2).
    assert answer["numpy_file"].startswith("/usr/lib/python3/dist-packages/numpy/"), answer
    assert answer["debian_numpy"].split(":")[-1].split("-")[0] == answer["numpy"], answer
    # The wheel came from a build stage: nothing in the image installs packages at run time.
    assert answer["pip"] is False, answer
