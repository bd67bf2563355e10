"""Tesseract's English line model read straight from its traineddata file (Debian's
tesseract-ocr-eng): the LSTM network's weights as float arrays, and what each output code means.

Only the network shape Tesseract's English models have is accepted ([1,36,0,1 Ct3,3,16 Mp3,3
Lfys48 Lfx96 Lrx96 Lfx192 O1c...], widths read from the file): a file of another shape is
refused with the layer it could not place, never run half-understood. The format is Tesseract's
own serialisation (src/lstm/network.cpp, weightmatrix.cpp, lstm.cpp, unicharcompress.cpp)."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]

# Where Tesseract itself finds it: $TESSDATA_PREFIX, else Debian's directory.
DEFAULT_TRAINEDDATA = Path(os.environ.get("TESSDATA_PREFIX") or "/usr/share/tesseract-ocr/5/tessdata") / "eng.traineddata"
# Model pixels per output time step: the max-pool's width (the only one accepted).
STEP_PIXELS = 3
# Components of a traineddata file (Tesseract's TessdataType).
LSTM, LSTM_UNICHARSET, LSTM_RECODER = 17, 21, 22
# WeightMatrix mode flags.
INT8_FLAG, DOUBLE_FLAG = 1, 128
# A Plumbing layer with this flag stores a learning rate per sub-layer after its stack.
LAYER_SPECIFIC_LR = 64
CONTAINERS = {"Series", "Parallel", "Replicated", "XYTranspose", "RTLReversed", "TTBReversed"}
FULLY_CONNECTED = {"Tanh", "Softmax", "Logistic", "Relu", "Linear"}


class ModelFormatError(ValueError):
    """The traineddata file is not a line model this reader understands."""


@dataclass(frozen=True)
class Lstm:
    """One LSTM layer: gates in Tesseract's order (cell input, input, forget, output), each
    (hidden, inputs + hidden + 1): the layer's input, then its previous output, then the bias."""
    name: str
    gates: tuple[Floats, Floats, Floats, Floats]

    @property
    def hidden(self) -> int:
        return int(self.gates[0].shape[0])

    @property
    def inputs(self) -> int:
        return int(self.gates[0].shape[1]) - self.hidden - 1


@dataclass(frozen=True)
class LineModel:
    """The network as its layers: a 3x3 convolution (weights (filters, 10): the nine neighbours
    ordered x-major, then the bias) with tanh, a max-pool, an LSTM run down each column keeping
    its last output, LSTMs along the line (forward, backward, forward), and a softmax over codes."""
    height: int
    conv: Floats
    pool: tuple[int, int]
    column: Lstm
    along: tuple[Lstm, Lstm, Lstm]
    output: Floats
    null_code: int
    code_text: dict[int, str]   # code -> characters (" " for the word space)
    spec: str


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self.offset = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        try:
            values = struct.unpack_from("<" + fmt, self._data, self.offset)
        except struct.error as exc:
            raise ModelFormatError("the model ends early") from exc
        self.offset += struct.calcsize("<" + fmt)
        return values

    def number(self, fmt: str = "i") -> int:
        return int(self.take(fmt)[0])

    def raw(self, size: int) -> bytes:
        if self.offset + size > len(self._data):
            raise ModelFormatError("the model ends early")
        out = self._data[self.offset:self.offset + size]
        self.offset += size
        return out

    def string(self) -> str:
        return self.raw(self.number("I")).decode("utf-8")


@dataclass(frozen=True)
class _Layer:
    kind: str
    name: str
    children: tuple[_Layer, ...] = ()
    weights: tuple[Floats, ...] = ()
    numbers: tuple[int, ...] = ()


def _weights(reader: _Reader) -> Floats:
    """An int8 weight matrix with a scale per row, as floats: Tesseract multiplies int8 weights
    by int8 inputs (x127) and the row's stored scale / 127, so a weight is int8 * scale."""
    mode = reader.number("B")
    if not (mode & INT8_FLAG and mode & DOUBLE_FLAG):
        raise ModelFormatError(f"weight matrix mode {mode}: only int8 models with double scales are read")
    rows, cols = reader.number(), reader.number()
    reader.number("b")   # the array's empty value
    ints = np.frombuffer(reader.raw(rows * cols), dtype=np.int8).reshape(rows, cols)
    count = reader.number("I")
    scales = np.frombuffer(reader.raw(8 * count), dtype="<f8")[:rows]
    return (ints.astype(np.float64) * scales[:, None]).astype(np.float32)


def _layer(reader: _Reader) -> _Layer:
    if reader.number("b") != 0:
        raise ModelFormatError("a layer without its type name (a pre-4.0 model)")
    kind = reader.string()
    reader.take("bb")   # training state, needs backprop
    flags, _inputs, _outputs, _weight_count = (reader.number() for _ in range(4))
    name = reader.string()
    if kind in CONTAINERS:
        children = tuple(_layer(reader) for _ in range(reader.number("I")))
        if flags & LAYER_SPECIFIC_LR:
            reader.raw(4 * reader.number("I"))
        return _Layer(kind, name, children)
    if kind == "Input":
        return _Layer(kind, name, numbers=tuple(reader.number() for _ in range(5)))
    if kind in ("Convolve", "Maxpool", "Reconfig"):
        return _Layer(kind, name, numbers=(reader.number(), reader.number()))
    if kind in ("LSTM", "SummLSTM"):
        reader.number()   # inputs + recurrent width
        return _Layer(kind, name, weights=tuple(_weights(reader) for _ in range(4)))
    if kind in FULLY_CONNECTED:
        return _Layer(kind, name, weights=(_weights(reader),))
    raise ModelFormatError(f"layer type {kind!r} ({name}) is not supported")


def _flat(layer: _Layer, inside: tuple[str, ...] = ()) -> list[tuple[_Layer, tuple[str, ...]]]:
    """Leaf layers in order, each with the containers around it (a Series adds nothing)."""
    if not layer.children:
        return [(layer, inside)]
    around = inside if layer.kind == "Series" else inside + (layer.kind,)
    return [leaf for child in layer.children for leaf in _flat(child, around)]


def _expect(found: tuple[_Layer, tuple[str, ...]], kind: str, inside: tuple[str, ...] = ()) -> _Layer:
    layer, around = found
    if layer.kind != kind or around != inside:
        raise ModelFormatError(f"expected {kind} inside {inside or 'nothing'}, found {layer.kind} "
                               f"({layer.name}) inside {around or 'nothing'}")
    return layer


def _lstm(layer: _Layer) -> Lstm:
    ci, gi, gf, go = layer.weights
    return Lstm(layer.name, (ci, gi, gf, go))


def _components(data: bytes) -> dict[int, bytes]:
    """The parts of a traineddata file: a count, one int64 offset each (-1: absent), the data."""
    reader = _Reader(data)
    count = reader.number()
    if not 0 < count < 100 or len(data) < 4 + 8 * count:
        raise ModelFormatError("not a traineddata file")
    offsets = [reader.number("q") for _ in range(count)]
    present = sorted((offset, index) for index, offset in enumerate(offsets) if offset >= 0)
    ends = [offset for offset, _ in present[1:]] + [len(data)]
    return {index: data[offset:end] for (offset, index), end in zip(present, ends)}


def _code_text(unicharset: str, recoder: bytes, null_code: int) -> dict[int, str]:
    """Which characters each output code stands for: the recoder gives each unichar its codes
    (one each in the Latin models), the unicharset their text; unichar 0 is the space, and the
    unichars coded as the blank (Tesseract's "Joined" and "Broken" markers) stand for nothing."""
    rows = unicharset.splitlines()
    texts = [row.split(" ", 1)[0] for row in rows[1:1 + int(rows[0])]]
    reader = _Reader(recoder)
    out: dict[int, str] = {}
    for unichar in range(reader.number("I")):
        reader.number("b")   # self-normalised
        codes = [reader.number() for _ in range(reader.number())]
        if len(codes) != 1:
            raise ModelFormatError(f"unichar {texts[unichar]!r} has {len(codes)} codes: only one-code models are read")
        if codes[0] != null_code:
            out.setdefault(codes[0], " " if unichar == 0 else texts[unichar])
    return out


def load(path: Path = DEFAULT_TRAINEDDATA) -> LineModel:
    parts = _components(path.read_bytes())
    if LSTM not in parts or LSTM_UNICHARSET not in parts or LSTM_RECODER not in parts:
        raise ModelFormatError(f"{path} has no LSTM model")
    reader = _Reader(parts[LSTM])
    leaves = _flat(_layer(reader))
    if len(leaves) != 9:
        raise ModelFormatError(f"{len(leaves)} layers, not the 9 of Tesseract's line models")
    shape = _expect(leaves[0], "Input").numbers   # batch, height, width, depth, loss
    half = _expect(leaves[1], "Convolve").numbers
    if half != (1, 1) or shape[3] != 1:
        raise ModelFormatError(f"a {2 * half[0] + 1}x{2 * half[1] + 1} convolution of depth {shape[3]}: "
                               "only 3x3 over grey is read")
    conv = _expect(leaves[2], "Tanh").weights[0]
    pool = _expect(leaves[3], "Maxpool").numbers
    if pool[0] != STEP_PIXELS:
        raise ModelFormatError(f"a max-pool {pool[0]} wide: only {STEP_PIXELS} (a time step of {STEP_PIXELS} pixels) is read")
    column = _lstm(_expect(leaves[4], "SummLSTM", ("XYTranspose",)))
    along = (_lstm(_expect(leaves[5], "LSTM")), _lstm(_expect(leaves[6], "LSTM", ("RTLReversed",))),
             _lstm(_expect(leaves[7], "LSTM")))
    output = _expect(leaves[8], "Softmax").weights[0]
    spec = reader.string()
    reader.take("iii")   # training flags, iterations
    null_code = reader.number()
    codes = _code_text(parts[LSTM_UNICHARSET].decode("utf-8"), parts[LSTM_RECODER], null_code)
    return LineModel(height=shape[1], conv=conv, pool=(pool[0], pool[1]), column=column, along=along,
                     output=output, null_code=null_code, code_text=codes, spec=spec)
