"""Per-file progress of an ingest: one small datagram from a worker per file it finishes.

A task of the ingest processes a chunk of files (:func:`zhuoji.flows.ingest.worker.process_files`,
about :data:`zhuoji.flows.ingest.planning.CHUNK_BYTES`) and returns their outcomes only
when the whole chunk is done; a run of a few chunks would show its progress bar still
for seconds, then jump. So the worker also says each file it finishes, as it finishes it
(:func:`report_file`): one datagram on a local Unix socket naming the file and its
hands, sent without waiting and dropped if nothing listens. The run's process listens
while its progress bar shows on a terminal (:class:`ProgressListener`).

The listener binds a socket of a random name (on Linux in the abstract namespace: no
file, nothing left behind by a killed run; elsewhere ``progress.sock`` in the staging
folder) and writes the address in the run's staging folder (:data:`ADDRESS_FILE`),
which every task is given already; a worker reads it once per chunk
(:func:`progress_address`). A worker of the local pool, of a Dask cluster on the same
machine or the ingest process itself (a run without workers) reaches it; a Dask worker on
another machine reaches nothing, and no worker tries when nobody listens (no address
file): their files count when their chunk returns, as before. The name being random, no
other process can take it first and read the run's file names.

The messages are not trusted: a datagram that does not name a file the run processes is
ignored, and each file counts once (:class:`ProgressListener`).

Imports only the standard library: a worker imports it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import sys
import threading
from collections.abc import Callable
from types import TracebackType

__all__ = ["ADDRESS_FILE", "ProgressListener", "progress_address", "report_file"]

ADDRESS_FILE = "progress-address"
"""The file in a run's staging folder that holds where its progress is said: ``@`` and
an abstract socket name, or a socket file's path."""

_SOCKET_NAME = "progress.sock"
_MAX_PATH_ADDRESS = 100  # bytes of a socket file's path (the system's limit is 104 to 108)
_MAX_DATAGRAM = 65536

Address = str | bytes
"""A Unix socket's address: a path, or (bytes, Linux) a name in the abstract namespace."""


def _new_address(staging_dir: str) -> Address | None:
    """A fresh address for a run's listener; ``None`` where none can be had (no Unix
    sockets, or a socket file's path too long)."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    if sys.platform.startswith("linux"):
        return b"\0zhuoji-ingest-progress-" + secrets.token_hex(16).encode("ascii")
    path = os.path.join(staging_dir, _SOCKET_NAME)
    return path if len(os.fsencode(path)) <= _MAX_PATH_ADDRESS else None


def _address_text(address: Address) -> str:
    if isinstance(address, bytes):
        return "@" + address[1:].decode("ascii")
    return address


def progress_address(staging_dir: str) -> Address | None:
    """Where the run staging in ``staging_dir`` listens for its workers' reports;
    ``None`` when it does not (no terminal, no bar), or the folder is not on this
    machine."""
    try:
        with open(os.path.join(staging_dir, ADDRESS_FILE), encoding="utf-8") as handle:
            text = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if text.startswith("@"):
        return b"\0" + text[1:].encode("ascii", "replace")
    return text or None


_SENDER: dict[str, socket.socket] = {}
"""This process's sending socket (one, made at its first report)."""


def report_file(address: Address | None, path: str, hands: int) -> None:
    """Say that the file ``path`` is done, with its ``hands`` loaded (0 if quarantined),
    to the run listening at ``address`` (:func:`progress_address`; ``None``: nobody).
    Never waits, never raises: a full socket buffer or nobody listening any more loses
    the message (the file still counts when its chunk returns)."""
    if address is None:
        return
    try:
        sender = _SENDER.get("socket")
        if sender is None:
            sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sender.setblocking(False)
            _SENDER["socket"] = sender
        sender.sendto(f"{hands}\t{path}".encode("utf-8", "surrogateescape"), address)
    except OSError:
        pass


class ProgressListener:
    """Receive the run's per-file reports (:func:`report_file`) in a thread while a
    ``with`` block runs; ``on_file(path, hands)`` is called (in that thread) for each
    report of a file of ``paths``, the first time only. Where no socket can be had (no
    Unix sockets, a socket file's path too long) it listens to nothing."""

    def __init__(
        self, staging_dir: str, paths: set[str], on_file: Callable[[str, int], None]
    ) -> None:
        self.staging_dir = staging_dir
        self.paths = paths
        self.on_file = on_file
        self._seen: set[str] = set()
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._named = ""

    def __enter__(self) -> ProgressListener:
        address = _new_address(self.staging_dir)
        if address is None:
            return self
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        named = os.path.join(self.staging_dir, ADDRESS_FILE)
        try:
            if isinstance(address, str):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(address)
            listener.bind(address)
            written = f"{named}.{os.getpid()}.tmp"
            with open(written, "w", encoding="utf-8") as handle:
                handle.write(_address_text(address) + "\n")
            os.replace(written, named)  # whole or not at all, for a worker reading it
        except OSError:  # progress counts by chunk, as without a terminal
            listener.close()
            return self
        self._named = named
        listener.settimeout(1.0)
        self._socket = listener
        self._thread = threading.Thread(
            target=self._receive, args=(listener,), name="zhuoji-ingest-progress", daemon=True
        )
        self._thread.start()
        return self

    def _receive(self, listener: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                data = listener.recv(_MAX_DATAGRAM)
            except TimeoutError:
                continue
            except OSError:
                return
            if self._stop.is_set():
                return
            hands_text, _, path = data.decode("utf-8", "surrogateescape").partition("\t")
            number = hands_text.isascii() and hands_text.isdigit()
            if not number or path not in self.paths or path in self._seen:
                continue
            self._seen.add(path)
            with contextlib.suppress(Exception):  # the bar's fault must not cost the run
                self.on_file(path, int(hands_text))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        listener, self._socket = self._socket, None
        if listener is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self._named)  # no worker sends any more
        address = listener.getsockname()
        try:  # the receiving thread wakes at once, and ends
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as waker:
                waker.setblocking(False)
                waker.sendto(b"", address)
        except OSError:
            pass
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self._thread is None or not self._thread.is_alive():
            listener.close()  # (else the daemon thread still in recv keeps it)
        if isinstance(address, str) and address:
            with contextlib.suppress(OSError):
                os.unlink(address)
