"""Per-file progress of an ingest: one small datagram from a worker per file it finishes.

A task of the ingest processes a chunk of files (:func:`zhuoji.flows.ingest.worker.process_files`,
about :data:`zhuoji.flows.ingest.planning.CHUNK_BYTES`) and returns their outcomes only
when the whole chunk is done; a run of a few chunks would show its progress bar still
for seconds, then jump. So the worker also says each file it finishes, as it finishes it
(:func:`report_file`): one datagram on a local Unix socket naming the file and its
hands, sent without waiting and dropped if nothing listens. The run's process listens
while its progress bar shows (:class:`ProgressListener`).

The socket's address is derived from the run's staging folder, which every task is given
already (:func:`progress_address`): on Linux a name in the abstract namespace (no file,
nothing left behind by a killed run), elsewhere a socket file in the staging folder. A
worker of the local pool, of a Dask cluster on the same machine or the ingest process
itself (a run without workers) reaches it; a Dask worker on another machine reaches
nothing and its files count when its chunk returns, as before.

The messages are not trusted: a datagram that does not name a file the run processes is
ignored, and each file counts once (:class:`ProgressListener`).

Imports only the standard library: a worker imports it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import sys
import threading
from collections.abc import Callable
from types import TracebackType

__all__ = ["ProgressListener", "progress_address", "report_file"]

_SOCKET_NAME = "progress.sock"
_MAX_PATH_ADDRESS = 100  # bytes of a socket file's path (the system's limit is 104 to 108)
_MAX_DATAGRAM = 65536


def progress_address(staging_dir: str) -> str | bytes | None:
    """Where the progress of the run staging in ``staging_dir`` is said: an abstract name
    (Linux), else the socket file in the folder; ``None`` where neither can be had (no
    Unix sockets, or a path too long for one)."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    if sys.platform.startswith("linux"):
        digest = hashlib.sha256(staging_dir.encode("utf-8", "surrogateescape")).hexdigest()
        return b"\0zhuoji-ingest-progress-" + digest[:32].encode("ascii")
    path = os.path.join(staging_dir, _SOCKET_NAME)
    return path if len(os.fsencode(path)) <= _MAX_PATH_ADDRESS else None


_SENDER: dict[str, socket.socket] = {}
"""This process's sending socket (one, made at its first report)."""


def report_file(staging_dir: str, path: str, hands: int) -> None:
    """Say that the file ``path`` is done, with its ``hands`` loaded (0 if quarantined),
    to the run staging in ``staging_dir``. Never waits, never raises: a full socket
    buffer, nobody listening or no socket at all loses the message (the file still
    counts when its chunk returns)."""
    address = progress_address(staging_dir)
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
    report of a file of ``paths``, the first time only. Where no socket can be had (see
    :func:`progress_address`) it listens to nothing."""

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

    def __enter__(self) -> ProgressListener:
        address = progress_address(self.staging_dir)
        if address is None:
            return self
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            if isinstance(address, str):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(address)
            listener.bind(address)
        except OSError:  # (another listener has the name: progress counts by chunk)
            listener.close()
            return self
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
