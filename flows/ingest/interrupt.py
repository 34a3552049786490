"""A Ctrl-C during an ingest, seen whatever caught it.

DuckDB runs a query with Python's signal handlers still called: a ``SIGINT`` during a
batch's load interrupts the query, and DuckDB raises its own ``RuntimeError("Query
interrupted")``, an ``Exception``, instead of the ``KeyboardInterrupt``. The load task,
retried on an ``Exception`` (the flow's ``retries``, the local run's
:data:`zhuoji.flows.ingest.local_run.TRIES`), then loaded the batch again and the run went
on as if no Ctrl-C had come: the interrupt was lost.

While :func:`watch_interrupts` is in force (the ingest's steps, in the main thread), a
``SIGINT`` is noted before it is handled as before; :func:`raise_if_interrupted` turns the
error of an interrupted call back into the ``KeyboardInterrupt`` it was.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["interrupted", "raise_if_interrupted", "watch_interrupts"]

_INTERRUPTED = threading.Event()


def interrupted() -> bool:
    """Whether a Ctrl-C came while :func:`watch_interrupts` was in force (this run)."""
    return _INTERRUPTED.is_set()


def raise_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C came (:func:`interrupted`): for the error of
    a call it interrupted, which is to end the run, not be retried."""
    if _INTERRUPTED.is_set():
        raise KeyboardInterrupt


@contextmanager
def watch_interrupts() -> Iterator[None]:
    """For the block: each ``SIGINT`` is noted (:func:`interrupted`), then handled by the
    handler there was (Python's raises ``KeyboardInterrupt``). Does nothing outside the
    main thread, or where ``SIGINT`` is ignored or left to the system."""
    _INTERRUPTED.clear()
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return

    def noted(signum: int, frame: FrameType | None) -> None:
        _INTERRUPTED.set()
        previous(signum, frame)

    signal.signal(signal.SIGINT, noted)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGINT) is noted:
            signal.signal(signal.SIGINT, previous)
