"""Tesseract's line model (tess_model.py) run by ONNX Runtime over many lines at once: the same
network Tesseract runs, in float, batched, on ONNX Runtime's fused LSTM kernels, instead of
Tesseract's one-line-at-a-time int8 loop, which spends most of its time moving data between its
layers (docs/vision.md gives the profile and the figures).

A line goes in as a grey image, dark text on light, cut with a few pixels of room around its ink;
out come, per time step (3 pixels of the line scaled to the model's height), the probabilities
of each code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import onnxruntime
from PIL import Image

from . import onnx_proto as proto
from .tess_model import STEP_PIXELS, LineModel, Lstm

Floats = npt.NDArray[np.float32]
# Lines run together in batches of at most this many, of similar widths (a batch is as wide as
# its widest line; ONNX Runtime is told each line's length so that the padding changes nothing).
BATCH_LINES = 8
# The widest line a batch pads a narrow one to, as a multiple of the narrow one's width.
BATCH_WIDTH_RATIO = 1.5
# A batch's lines times its widest line's steps stays under this unless the batch is one line
# (the convolution's output, 16 floats for each of 108 pixels a step, is then under 60 MB).
BATCH_STEPS = 8192


@dataclass(frozen=True)
class PreparedLine:
    """A line scaled to the model's height and normalised to [-1, 1] as Tesseract does, with
    the factor it was scaled by (model pixels per line-image pixel)."""
    pixels: Floats
    scale: float

    @property
    def steps(self) -> int:
        return int(self.pixels.shape[1]) // STEP_PIXELS


def _black_white(row: npt.NDArray[np.int16]) -> tuple[float, float]:
    """Tesseract's contrast points for a line: along its middle row, the 25th percentile of the
    local minima (black) and the 75th of the local maxima (white)."""
    prev, curr, nxt = row[:-2], row[1:-1], row[2:]
    minima = curr[((curr < prev) & (curr <= nxt)) | ((curr <= prev) & (curr < nxt))]
    maxima = curr[((curr > prev) & (curr >= nxt)) | ((curr >= prev) & (curr > nxt))]
    black = float(np.percentile(minima, 25, method="lower")) if minima.size else 0.0
    white = float(np.percentile(maxima, 75, method="lower")) if maxima.size else 255.0
    return black, white


def scaled_width(size: tuple[int, int], height: int) -> int:
    """A line's width once its (width, height) is scaled to ``height`` (at least one step)."""
    return max(3, round(size[0] * height / size[1]))


def prepare(line: Image.Image, height: int) -> PreparedLine:
    scale = height / line.height
    width = scaled_width(line.size, height)
    scaled = np.asarray(line.resize((width, height), Image.Resampling.BILINEAR), dtype=np.int16)
    black, white = _black_white(scaled[height // 2])
    contrast = max((white - black) / 2, 1.0)
    pixels = np.clip((scaled - black) / contrast - 1.0, -1.0, 1.0).astype(np.float32)
    return PreparedLine(pixels, scale)


def _lstm_tensors(layer: Lstm) -> tuple[Floats, Floats, Floats]:
    """Tesseract's gates (cell input, input, forget, output; each [inputs | recurrent | bias])
    as ONNX's W, R and B (gate order input, output, forget, cell)."""
    ci, gi, gf, go = layer.gates
    order = (gi, go, gf, ci)
    n = layer.inputs
    w = np.concatenate([g[:, :n] for g in order])[None]
    r = np.concatenate([g[:, n:n + layer.hidden] for g in order])[None]
    bias = np.concatenate([g[:, -1] for g in order])
    b = np.concatenate([bias, np.zeros_like(bias)])[None]
    return w, r, b


def graph(model: LineModel) -> bytes:
    """The network as an ONNX graph: image (lines, 1, height, width) and lengths (each line's
    time steps) in, probabilities (steps, lines, codes) out."""
    filters = model.conv.shape[0]
    # Tesseract stacks the 3x3 neighbours x-major; ONNX's kernel is (y, x).
    kernel = model.conv[:, :9].reshape(filters, 3, 3).transpose(0, 2, 1)[:, None]
    inits = [proto.tensor("conv_w", np.ascontiguousarray(kernel)), proto.tensor("conv_b", model.conv[:, 9].copy()),
             proto.tensor("column_shape", np.array([model.height // model.pool[1], -1, filters], np.int64)),
             proto.tensor("batch_and_steps", np.array([0, 3], np.int64)),
             proto.tensor("column_width", np.array([model.column.hidden], np.int64)),
             proto.tensor("axis_1", np.array([1], np.int64)),
             proto.tensor("out_w", np.ascontiguousarray(model.output[:, :-1].T)),
             proto.tensor("out_b", model.output[:, -1].copy())]
    nodes = [proto.node("Conv", ["image", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1]),
             proto.node("MaxPool", ["conv"], ["pooled"], kernel_shape=[model.pool[1], model.pool[0]],
                        strides=[model.pool[1], model.pool[0]]),
             proto.node("Tanh", ["pooled"], ["features"]),   # tanh after the max: the same, 9x fewer
             proto.node("Transpose", ["features"], ["rows_first"], perm=[2, 0, 3, 1]),
             proto.node("Reshape", ["rows_first", "column_shape"], ["columns"])]
    inits += [proto.tensor(f"column_{k}", t) for k, t in zip("WRB", _lstm_tensors(model.column))]
    nodes += [proto.node("LSTM", ["columns", "column_W", "column_R", "column_B"], ["", "column_last"],
                         hidden_size=model.column.hidden),
              proto.node("Shape", ["features"], ["features_shape"]),
              proto.node("Gather", ["features_shape", "batch_and_steps"], ["lines_steps"]),
              proto.node("Concat", ["lines_steps", "column_width"], ["summary_shape"], axis=0),
              proto.node("Reshape", ["column_last", "summary_shape"], ["summary"]),
              proto.node("Transpose", ["summary"], ["sequence_0"], perm=[1, 0, 2])]
    for i, (layer, direction) in enumerate(zip(model.along, ("forward", "reverse", "forward"))):
        inits += [proto.tensor(f"along{i}_{k}", t) for k, t in zip("WRB", _lstm_tensors(layer))]
        nodes += [proto.node("LSTM", [f"sequence_{i}", f"along{i}_W", f"along{i}_R", f"along{i}_B", "lengths"],
                             [f"along{i}"], hidden_size=layer.hidden, direction=direction),
                  proto.node("Squeeze", [f"along{i}", "axis_1"], [f"sequence_{i + 1}"])]
    nodes += [proto.node("MatMul", ["sequence_3", "out_w"], ["logits_w"]),
              proto.node("Add", ["logits_w", "out_b"], ["logits"]),
              proto.node("Softmax", ["logits"], ["probabilities"], axis=-1)]
    return proto.model("tesseract-line", nodes, inits,
                       [proto.value_info("image", proto.FLOAT, ["lines", 1, model.height, "width"]),
                        proto.value_info("lengths", proto.INT32, ["lines"])],
                       [proto.value_info("probabilities", proto.FLOAT, ["steps", "lines", model.output.shape[0]])])


def batches(steps: Sequence[int]) -> list[list[int]]:
    """Indices of lines of these time steps grouped widest first into batches of similar widths."""
    order = sorted(range(len(steps)), key=lambda i: -steps[i])
    out: list[list[int]] = []
    for i in order:
        widest = steps[out[-1][0]] if out else 0
        if (out and len(out[-1]) < BATCH_LINES and widest <= BATCH_WIDTH_RATIO * steps[i]
                and (len(out[-1]) + 1) * widest <= BATCH_STEPS):
            out[-1].append(i)
        else:
            out.append([i])
    return out


class LineNet:
    """One ONNX Runtime session (safe to run from several threads at once), one thread per run:
    the caller spreads batches over the cores."""

    def __init__(self, model: LineModel) -> None:
        self.model = model
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        # A spinning thread pool burns the desktop's CPU between runs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(graph(model), options, providers=["CPUExecutionProvider"])

    def run(self, lines: Sequence[PreparedLine]) -> list[Floats]:
        """Per line, its (steps, codes) probabilities."""
        steps = max(line.steps for line in lines)
        # Padding is 0, what the convolution sees past any image's edge (Tesseract feeds noise of
        # mean 0 there), so a line reads the same alone or batched beside a wider one.
        image = np.zeros((len(lines), 1, self.model.height, steps * STEP_PIXELS), np.float32)
        for i, line in enumerate(lines):
            usable = line.steps * STEP_PIXELS
            image[i, 0, :, :usable] = line.pixels[:, :usable]
        lengths = np.array([line.steps for line in lines], np.int32)
        (probabilities,) = self._session.run(None, {"image": image, "lengths": lengths})
        return [probabilities[:line.steps, i] for i, line in enumerate(lines)]
