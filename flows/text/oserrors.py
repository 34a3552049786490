"""The system's refusals in words: one table from errno to the text the commands print, and
the errno behind a duckdb error (duckdb's ``IOException`` keeps the system's text, not the
errno).

Both the command line's errors (:mod:`zhuoji.flows.cli.errors`) and the warehouse's storage errors
(:mod:`zhuoji.flows.warehouse.store`) read it, so a full disk reads the same wherever it is met.
Only
the standard library is imported here (``zhuoji --help`` imports this module).
"""

from __future__ import annotations

import errno
import os

__all__ = ["OS_ERROR_TEXT", "STORAGE_ERRNOS", "errno_in_text", "os_error_text"]

OS_ERROR_TEXT: dict[int, str] = {
    errno.ENOSPC: "no space left on device (the disk is full; free some space and run again)",
    errno.EROFS: "read-only file system (it cannot be written here)",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOENT: "no such file or directory",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "not a directory",
    errno.EDQUOT: "disk quota exceeded",
    errno.EIO: "input/output error",
}
"""The text for each errno the commands explain; another errno gets the system's text."""

STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT})
"""The errnos of a disk that refuses to be written: full, read-only, not permitted, over
quota."""

# How the system's text of each storage errno reads inside another error's message.
_NEEDLES = (
    ("no space left on device", errno.ENOSPC),
    ("read-only file system", errno.EROFS),
    ("permission denied", errno.EACCES),
    ("disk quota exceeded", errno.EDQUOT),
)


def os_error_text(code: int) -> str:
    """The text for ``code``: the table's, else the system's (``os.strerror``)."""
    return OS_ERROR_TEXT.get(code) or os.strerror(code).lower()


def errno_in_text(message: str) -> int | None:
    """The storage errno whose system text ``message`` holds (a duckdb ``IOException``
    says "No space left on device"), or None."""
    text = message.lower()
    for needle, code in _NEEDLES:
        if needle in text:
            return code
    return None
