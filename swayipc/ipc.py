"""Sway's IPC (the i3 protocol) over its Unix socket, in-process: ``"i3-ipc"``, payload length
and message type (native-endian u32 each), then the JSON payload."""

from __future__ import annotations

import glob
import json
import os
import socket
import struct
from typing import TypedDict

from swayipc.tree import Rect, SwayNode

MAGIC = b"i3-ipc"
HEADER = struct.Struct("=6sII")
RUN_COMMAND, GET_WORKSPACES, GET_OUTPUTS, GET_TREE, GET_VERSION, GET_SEATS = 0, 1, 3, 4, 7, 101
TIMEOUT_S = 10.0


class CommandResult(TypedDict, total=False):
    success: bool
    error: str                   # when success is false


class Output(TypedDict, total=False):
    """GET_OUTPUTS' answer, one per output: the fields we read."""
    name: str
    active: bool
    rect: Rect


class Version(TypedDict, total=False):
    human_readable: str
    major: int
    minor: int
    patch: int


class IpcError(Exception):
    """Sway's IPC socket is missing, went away or answered what we cannot read."""


def find_socket(runtime_dir: str | None = None) -> str:
    """$SWAYSOCK, else the newest sway-ipc socket in $XDG_RUNTIME_DIR (Sway names it by pid)."""
    path = os.environ.get("SWAYSOCK")
    if path:
        return path
    runtime = runtime_dir or os.environ.get("XDG_RUNTIME_DIR") or ""
    found = sorted(glob.glob(os.path.join(runtime, "sway-ipc.*.sock")), key=os.path.getmtime)
    if not found:
        raise IpcError(f"no Sway IPC socket (SWAYSOCK unset, none in {runtime or 'XDG_RUNTIME_DIR'})")
    return found[-1]


class SwayIpc:
    def __init__(self, path: str) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        self._sock.settimeout(TIMEOUT_S)
        try:
            self._sock.connect(path)
        except OSError as exc:
            self._sock.close()
            raise IpcError(f"cannot connect to Sway's IPC socket {path}: {exc}") from None

    def _read(self, size: int) -> bytes:
        chunks, left = [], size
        while left:
            chunk = self._sock.recv(left)
            if not chunk:
                raise IpcError("Sway closed its IPC socket")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def request(self, kind: int, payload: str = "") -> bytes:
        """The JSON text of Sway's answer to a ``kind`` message."""
        raw = payload.encode()
        try:
            self._sock.sendall(HEADER.pack(MAGIC, len(raw), kind) + raw)
            magic, size, reply_kind = HEADER.unpack(self._read(HEADER.size))
            body = self._read(size)
        except OSError as exc:
            raise IpcError(f"Sway's IPC failed: {exc}") from None
        if magic != MAGIC or reply_kind != kind:
            raise IpcError(f"Sway's IPC answered type {reply_kind} to {kind}")
        return body

    # Each answer is declared by the TypedDict it is read as (json.loads checks no shape).
    def command(self, command: str) -> list[CommandResult]:
        """Run Sway commands; one result each."""
        result: list[CommandResult] = json.loads(self.request(RUN_COMMAND, command))
        return result

    def tree(self) -> SwayNode:
        result: SwayNode = json.loads(self.request(GET_TREE))
        return result

    def outputs(self) -> list[Output]:
        result: list[Output] = json.loads(self.request(GET_OUTPUTS))
        return result

    def version(self) -> Version:
        result: Version = json.loads(self.request(GET_VERSION))
        return result

    def close(self) -> None:
        self._sock.close()
