"""The few parts of ONNX's protobuf format (onnx/onnx.proto) a model needs, written directly: a
graph of nodes over named float/int tensors. ONNX Runtime loads the bytes; the `onnx` package
(and protobuf) would be two more dependencies for the sake of this one writer."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

IR_VERSION = 8
OPSET = 17
# TensorProto.DataType
FLOAT, INT32, INT64 = 1, 6, 7
_ELEMENT = {np.dtype(np.float32): FLOAT, np.dtype(np.int32): INT32, np.dtype(np.int64): INT64}
# AttributeProto.AttributeType
_ATTR_FLOAT, _ATTR_INT, _ATTR_STRING, _ATTR_INTS = 1, 2, 3, 7

Attribute = int | float | str | Sequence[int]


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1   # negative int64s as two's complement, as protobuf does
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _float(field: int, value: float) -> bytes:
    return _varint(field << 3 | 5) + struct.pack("<f", value)


def tensor(name: str, array: npt.NDArray[np.generic]) -> bytes:
    """A TensorProto: dims, data type, name, little-endian raw data."""
    data = np.ascontiguousarray(array)
    kind = _ELEMENT[data.dtype]
    return (b"".join(_int(1, dim) for dim in data.shape) + _int(2, kind) + _bytes(8, name)
            + _bytes(9, data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes()))


def _attribute(name: str, value: Attribute) -> bytes:
    out = _bytes(1, name)
    if isinstance(value, float):
        return out + _float(2, value) + _int(20, _ATTR_FLOAT)
    if isinstance(value, int):
        return out + _int(3, value) + _int(20, _ATTR_INT)
    if isinstance(value, str):
        return out + _bytes(4, value) + _int(20, _ATTR_STRING)
    return out + b"".join(_int(8, v) for v in value) + _int(20, _ATTR_INTS)


def node(op: str, inputs: Iterable[str], outputs: Iterable[str], **attributes: Attribute) -> bytes:
    """A NodeProto; an empty input name is an optional input left out."""
    return (b"".join(_bytes(1, name) for name in inputs) + b"".join(_bytes(2, name) for name in outputs)
            + _bytes(4, op) + b"".join(_bytes(5, _attribute(k, v)) for k, v in attributes.items()))


def value_info(name: str, element: int, shape: Sequence[int | str]) -> bytes:
    """A graph input or output: its element type and shape (a str is a named, free dimension)."""
    dims = b"".join(_bytes(1, _bytes(2, d) if isinstance(d, str) else _int(1, d)) for d in shape)
    tensor_type = _int(1, element) + _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def model(name: str, nodes: Iterable[bytes], initializers: Iterable[bytes], inputs: Iterable[bytes],
          outputs: Iterable[bytes]) -> bytes:
    """A ModelProto of one graph on the default operator set."""
    graph = (b"".join(_bytes(1, n) for n in nodes) + _bytes(2, name)
             + b"".join(_bytes(5, t) for t in initializers)
             + b"".join(_bytes(11, i) for i in inputs) + b"".join(_bytes(12, o) for o in outputs))
    opset = _bytes(1, "") + _int(2, OPSET)
    return _int(1, IR_VERSION) + _bytes(2, "desktopd") + _bytes(7, graph) + _bytes(8, opset)
