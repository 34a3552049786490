"""The file a command writes where the user says: ``export --out``, ``audit --html``,
``convert SRC TARGET``.

Nothing a user names is destroyed by mistake: the target is refused when it is one of the
files the command reads (however spelt: the same resolved path, or the same device and
inode), when it is anything but a regular file or a new path (a folder, a device, a named
pipe, a socket; never opened, so a pipe does not block), and when it exists and
``--force`` was not given. A symbolic link to a regular file is followed: the file is
replaced, the link is kept. The file is written whole or not at all: to a locked
``.partial-PID-NAME`` in the same folder, renamed into place once complete and once the
target is checked again; removed on any error, Ctrl-C, SIGTERM or SIGHUP.
"""

from __future__ import annotations

import os
import signal
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TypeVar

from zhuoji.flows.cli.errors import fail
from zhuoji.flows.text.terminal import safe

__all__ = [
    "PARTIAL",
    "interruptible",
    "output_target",
    "refuse_the_inputs",
    "remove_stale_partials",
    "write_whole",
]

PARTIAL = ".partial-"

T = TypeVar("T")


def _message(template: str, *values: object) -> str:
    from zhuoji.rules.messages import Message

    return Message(template, *values)


def _stat(path: Path | str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def refuse_the_inputs(
    out: Path, inputs: Sequence[tuple[str, Sequence[Path]]], command: str, option: str
) -> None:
    """Refuse an ``out`` that is one of the files ``command`` reads, however spelt (the
    same resolved path, or the same file: device and inode). ``inputs`` pairs what a file
    is (``the database``) with the names it goes by."""
    real_out = os.path.realpath(out)
    out_stat = _stat(out)
    for what, paths in inputs:
        for path in sorted(set(paths)):
            path_stat = _stat(path)
            same = os.path.realpath(path) == real_out or (
                out_stat is not None
                and path_stat is not None
                and os.path.samestat(out_stat, path_stat)
            )
            if same:
                raise fail(_message(
                    "{out:any} is {what:input} {path:any}, which {command:any} reads; "
                    "give another {option:any}", safe(out), what, safe(path), command, option,
                ))


def output_target(
    out: Path,
    *,
    command: str,
    option: str,
    inputs: Sequence[tuple[str, Sequence[Path]]],
    force: bool,
    make_folder: bool = False,
) -> Path:
    """The file ``command`` writes for ``out``: ``out``, or the file it links to. Refused
    (one line, exit 2): one of ``inputs``, anything but a regular file or a new path, an
    existing file without ``force``, a missing folder (unless ``make_folder``: the
    command creates it)."""
    refuse_the_inputs(out, inputs, command, option)
    try:
        found: os.stat_result | None = os.stat(out)
    except FileNotFoundError:
        found = None
    if found is not None:
        if not stat.S_ISREG(found.st_mode):
            from zhuoji.parsers.read import describe_file_type

            raise fail(_message(
                "{out:any} is {kind:any}; {command:any} writes only to a regular file or a "
                "new path", safe(out), describe_file_type(found.st_mode), command,
            ))
        if not force:
            raise fail(_message("{out:any} exists; give --force to replace it", safe(out)))
    # A symbolic link is followed: its target is replaced, the link is kept.
    target = Path(os.path.realpath(out)) if os.path.islink(out) else out
    folder = target.parent
    if not folder.is_dir() and not (make_folder and not folder.exists()):
        raise fail(_message(
            "cannot write {out:any}: the folder {folder:any} is not a folder"
            if folder.exists() else
            "cannot write {out:any}: the folder {folder:any} does not exist",
            safe(out), safe(folder),
        ))
    return target


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def remove_stale_partials(target: Path) -> list[Path]:
    """Remove the temporary files earlier writes to ``target`` left when they were
    killed: ``.partial-PID-NAME`` beside it whose process is gone and which no process
    holds locked (a write holds its own locked while it writes). Returns them."""
    import fcntl

    folder = target.parent
    suffix = f"-{target.name}"
    removed: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(PARTIAL) and name.endswith(suffix)):
            continue
        pid_text = name[len(PARTIAL):-len(suffix)]
        if not (pid_text.isascii() and pid_text.isdigit()) or int(pid_text) <= 0:
            continue
        pid = int(pid_text)
        if pid != os.getpid() and _alive(pid):
            continue
        path = folder / name
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.samestat(os.fstat(fd), os.lstat(path)):
                os.unlink(path)
                removed.append(path)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP ends a write like Ctrl-C: its temporary file is removed."""
    raise KeyboardInterrupt


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt while inside (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def named(exc: OSError, out: Path) -> OSError:
    """The same error about the user's path (not the temporary file)."""
    return OSError(exc.errno, exc.strerror or str(exc), str(out))


def write_whole(
    target: Path,
    out: Path,
    write: Callable[[Path, IO[bytes]], T],
    check_again: Callable[[], Path],
) -> T:
    """Write ``target`` whole or not at all: ``write(partial, f)`` fills a temporary file
    in the same folder (``.partial-PID-NAME``, locked while it is written, ``f`` open on
    it), renamed into place once complete and once ``check_again()`` still gives
    ``target``. An OSError names ``out``; on any error or interruption the temporary file
    is removed."""
    import fcntl

    remove_stale_partials(target)
    partial = target.with_name(f"{PARTIAL}{os.getpid()}-{target.name}")
    with interruptible():
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise named(exc, out) from None
        try:
            with open(fd, "wb") as f:
                fcntl.flock(f, fcntl.LOCK_EX)
                try:
                    result = write(partial, f)
                    f.flush()
                except OSError as exc:
                    raise named(exc, out) from None
                if check_again() != target:
                    raise fail(_message("{out:any} changed while it was written; nothing was "
                                        "written", safe(out)))
                os.replace(partial, target)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    return result
