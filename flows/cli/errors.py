"""How the command line ends: exit statuses, and every error as one line on stderr.

:class:`ZhuojiGroup` is the root command's class. Whatever a command raises ends as one
line ``error: ...`` on standard error and exit status 2 (``--debug``, or ``ZHUOJI_DEBUG=1``,
prints the traceback first); a usage error (an unknown option, a missing argument) is one
line too, with the command's ``--help`` named. A DuckDB error about a query is followed by
DuckDB's lines that point at the place in the query (:func:`fail_sql`). A closed pipe
(``zhuoji audit ... | head``) ends every command quietly with exit status 0, whenever the
reader goes: before the first line, in the middle of the output or at its last flush; what
the command had left to write is dropped. The exit statuses (``docs/pipeline.md``):

* 0: done, nothing to report;
* 1: ``zhuoji audit`` found a violation or a mismatch (the input was read);
* 2: an error: a usage error, an input that is missing or malformed, a database that is
  missing, busy or on a full or read-only disk, an unreachable service;
* 130: interrupted (Ctrl-C).

Only Typer is imported here; the classes of duckdb, Prefect or httpx are recognised by
name, so that ``--help`` imports none of them.
"""

from __future__ import annotations

import errno
import os
import select
import sys
import traceback
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import Any

import orjson
import typer
from typer.core import TyperGroup

# Older typer releases run on click, recent ones on a copy of it of their own
# (typer._click), whose classes are the ones their commands raise.
try:
    from typer._click import Context
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover - an older typer (the lower bounds' environment)
    from click import Context  # type: ignore[assignment]
    from click.exceptions import (  # type: ignore[assignment]
        ClickException,
        NoArgsIsHelpError,
        UsageError,
    )

from zhuoji.flows.text.oserrors import OS_ERROR_TEXT, errno_in_text, os_error_text
from zhuoji.flows.text.terminal import escape_unencodable, safe

__all__ = [
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "ZhuojiGroup",
    "describe_error",
    "error_line",
    "fail",
    "fail_sql",
    "is_debug",
    "message_of",
    "set_debug",
    "set_json_errors",
    "shown",
]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

_state: dict[str, bool] = {"debug": False, "json": False}


def set_debug(on: bool) -> None:
    _state["debug"] = on


def set_json_errors(on: bool) -> None:
    """With ``--json`` a command's fatal error is also one JSON object on stdout."""
    _state["json"] = on


def is_debug() -> bool:
    """``--debug`` given, or ``ZHUOJI_DEBUG`` set (to anything but 0)."""
    return _state["debug"] or os.environ.get("ZHUOJI_DEBUG", "") not in ("", "0")


def environment_errno(exc: BaseException) -> int | None:
    """The errno of a full disk, a read-only file system, ... behind ``exc`` (its causes
    and contexts included), or None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in OS_ERROR_TEXT:
            return current.errno
        code = errno_in_text(str(current))
        if code is not None:
            return code
        current = current.__cause__ or current.__context__
    return None


def _os_error(exc: OSError) -> str:
    said = message_of(exc)
    if hasattr(said, "template") and not isinstance(exc.errno, int):  # raised with a message
        return said
    text = OS_ERROR_TEXT.get(exc.errno or -1) or (exc.strerror or str(exc)).lower()
    names = [n for n in (exc.filename, exc.filename2) if n is not None]
    where = " -> ".join(os.fsdecode(n) if isinstance(n, bytes) else str(n) for n in names)
    return _message("{path:any}: {why:oserror}", where, text) if where else _message(text)


def _message(template: str, *values: object) -> str:
    """A message of the glossary (its Chinese is printed under ``--lang zh``), made
    without importing the engine's package when it is not loaded yet."""
    from zhuoji.rules.messages import Message

    if not values and "{" in template:
        return template
    return Message(template, *values)


def message_of(exc: BaseException) -> str:
    """What ``exc`` says: the :class:`~zhuoji.rules.messages.Message` it was raised with
    (kept, so that it is printed in the invocation's language), else ``str(exc)``."""
    args = exc.args
    if len(args) == 1 and isinstance(args[0], str) and hasattr(args[0], "template"):
        return args[0]
    return str(exc)


_PROJECT = ("zhuoji.flows", "zhuoji.parsers", "zhuoji.rules")


def _type_path(exc: BaseException) -> str:
    kind = type(exc)
    return f"{kind.__module__}.{kind.__qualname__}"


def _package_of(cls: type) -> str:
    """``zhuoji.flows`` for ``zhuoji.flows.ingest.planning``: the project's package of a class."""
    return ".".join(cls.__module__.split(".")[:2])


def _is_from(exc: BaseException, *packages: str) -> bool:
    """Whether a class of ``exc`` comes from one of ``packages`` (``duckdb``, ``zhuoji.flows``)."""
    return any(
        c.__module__.split(".")[0] in packages or _package_of(c) in packages
        for c in type(exc).__mro__
        if c is not object
    )


def describe_error(exc: BaseException) -> str:
    """The one line that says what went wrong (no traceback, no type names for the
    errors users cause; an unexpected one says so)."""
    if isinstance(exc, OSError) and not _is_from(exc, "httpx", "httpcore"):
        return _os_error(exc)
    code = environment_errno(exc)
    if _is_from(exc, "duckdb"):
        message = str(exc).split("\n", 1)[0]
        if code is not None:
            return _message("{why:oserror}: {d:external}", os_error_text(code), message)
        return _message("{d:external}", message)
    if _is_from(exc, "httpx", "httpcore"):
        url = os.environ.get("PREFECT_API_URL")
        detail = str(exc) or type(exc).__name__
        if url:
            return _message(
                "cannot reach the Prefect API at {url:any} (PREFECT_API_URL): {d:external}; "
                "start it (`prefect server start`) or unset PREFECT_API_URL", url, detail)
        return _message(
            "cannot reach the Prefect API: {d:external}; "
            "start it (`prefect server start`) or unset PREFECT_API_URL", detail)
    if "Failed to reach API" in str(exc):
        url = os.environ.get("PREFECT_API_URL")
        if url:
            return _message(
                "cannot reach the Prefect API at {url:any} (PREFECT_API_URL): start it "
                "(`prefect server start`) or unset PREFECT_API_URL", url)
        return _message("cannot reach the Prefect API: start it (`prefect server start`) "
                        "or unset PREFECT_API_URL")
    if _package_of(type(exc)) in _PROJECT and str(exc):
        return message_of(exc)  # the project's own errors say what to do
    if isinstance(exc, ValueError | LookupError) and _is_from(exc, *_PROJECT):
        return message_of(exc)
    if isinstance(exc, MemoryError):
        return _message(
            "out of memory: the command needed more than the system (or `ulimit -v`) allows; "
            "free memory, raise the limit or ask for less (a table holds its rows: "
            "--format csv or json streams them)"
        )
    if isinstance(exc, TimeoutError):
        return _message("timed out: {d:external}", str(exc)) if str(exc) else _message(
            "timed out")
    if code is not None:
        return _message("{why:oserror}: {d:external}", os_error_text(code), str(exc))
    detail = str(exc).split("\n", 1)[0]
    return _message(
        "unexpected error {t:any}: {d:external} "
        "(run with --debug for the traceback, and report it)", _type_path(exc), detail
    )


def shown(message: str) -> str:
    """``message`` in the invocation's language (``--lang``, else the locale): English as
    it is; in Chinese a :class:`~zhuoji.rules.messages.Message` by its glossary template
    (:func:`zhuoji.rules.glossary.render`)."""
    from zhuoji.flows.cli.lang import current_lang

    lang = current_lang()
    if lang == "en" or not message:
        return message
    from zhuoji.rules.glossary import render

    return render(message, lang)


def error_line(message: str) -> str:
    """The whole error line: ``error: ...`` (``错误：...`` in Chinese), escaped."""
    from zhuoji.flows.cli.lang import current_lang

    if current_lang() == "en":
        return f"error: {safe(message)}"
    return f"错误：{safe(shown(message))}"


def _emit(
    message: str, lines: Sequence[str] = (), fields: Mapping[str, Any] | None = None
) -> None:
    line = error_line(message)
    if _state["json"]:
        try:
            error = {"message": message, **(fields or {})}
            sys.stdout.write(orjson.dumps({"error": error}).decode() + "\n")
            sys.stdout.flush()
        except OSError:
            pass
    sys.stderr.write(f"{line}\n" + "".join(f"{more}\n" for more in lines))
    sys.stderr.flush()


def fail(
    message: str | BaseException,
    code: int = EXIT_ERROR,
    *,
    lines: Sequence[str] = (),
    fields: Mapping[str, Any] | None = None,
) -> typer.Exit:
    """Print ``message`` (a :class:`~zhuoji.rules.messages.Message`, or an exception: what
    it says, :func:`message_of`) as the error line, in the invocation's language, then
    ``lines`` (already escaped: where in a query it went wrong); returns the Exit to raise.
    The JSON error object (``--json``) holds the English, and ``fields`` too."""
    if isinstance(message, BaseException):
        said = message_of(message)
        if not hasattr(said, "template") and _is_from(message, "duckdb"):
            said = _message("{d:external}", said)  # DuckDB's words, as they are
        message = said
    _emit(message, lines, fields)
    return typer.Exit(code)


def fail_sql(exc: BaseException, query: str | None = None) -> typer.Exit:
    """:func:`fail` for a DuckDB error: its first line, then DuckDB's further lines, the
    place in ``query`` (``LINE 1: ...`` and the caret) among them
    (:mod:`zhuoji.flows.cli.sqlerror`)."""
    from zhuoji.flows.cli.sqlerror import split_sql_error
    from zhuoji.rules.messages import Message

    split = split_sql_error(str(exc), query)
    code = environment_errno(exc)
    # DuckDB's words are shown as they are, in Chinese too (the kind "external")
    message = (
        Message("{d:external}", split.message)
        if code is None
        else Message("{why:oserror}: {d:external}", os_error_text(code), split.message)
    )
    return fail(message, lines=split.lines, fields=split.fields)


def _is_broken_pipe(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno == errno.EPIPE


def _reader_gone(fd: int) -> bool:
    """Whether ``fd`` is a pipe (or terminal) nobody reads any more (``2>&1 | head``)."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def _quiet_pipe() -> None:
    # The reader went away: later writes (and the interpreter's final flush) must not
    # print a traceback of their own. Standard error too when its reader is gone as well.
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            stderr = sys.stderr.fileno() if sys.stderr is not None else -1
            if stderr >= 0 and _reader_gone(stderr):
                os.dup2(devnull, stderr)
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)


def _output_failed(exc: OSError) -> int:
    """The exit status after writing to standard output failed with ``exc``: a closed pipe
    ends quietly (0); a full disk or another write error under ``zhuoji ... > file`` is an
    error line (2). Either way what is left to write is dropped, so that the
    interpreter's own last flush has nothing to fail on."""
    _quiet_pipe()
    if _is_broken_pipe(exc):
        return EXIT_OK
    with suppress(OSError, ValueError):
        sys.stderr.write(error_line(_message("standard output: {why:said}",
                                             describe_error(exc))) + "\n")
        sys.stderr.flush()
    return EXIT_ERROR


def _flush_stdout(code: int) -> int:
    """Write what standard output still holds; the exit status once it is written."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as exc:
        return _output_failed(exc)
    return code


def _chinese() -> bool:
    from zhuoji.flows.cli.lang import current_lang

    return current_lang() == "zh"


_INVALID_VALUE = ("Invalid value for ", "Invalid value: ")


def _usage_message(exc: ClickException) -> str:
    """Click's sentence of a usage error; a bad value's reason kept a message when the
    command gave one (``typer.BadParameter(Message(...))``), and Click's own sentences
    matched to the glossary's ``[message.click]`` in Chinese."""
    english = exc.format_message()
    if not _chinese():
        return english
    inner = getattr(exc, "message", "")
    if english.startswith(_INVALID_VALUE) and inner and english.endswith(str(inner)):
        head = english[: len(english) - len(str(inner))].rstrip()
        if head.startswith("Invalid value for "):
            what = head[len("Invalid value for "):].rstrip(":")
            return _message("invalid value for {p:any}: {m:any}", what, _click_message(inner))
        return _message("invalid value: {m:any}", _click_message(inner))
    return _click_message(english)


def _click_message(text: str) -> str:
    """Click's English sentence as a message of the glossary's ``[message.click]`` (a
    :class:`~zhuoji.rules.messages.Message` given by a command is kept)."""
    if hasattr(text, "template"):
        return text
    from zhuoji.rules.glossary import glossary
    from zhuoji.rules.messages import Message

    g = glossary()
    for template in g.templates.get("click", ()):
        found = g.regex(template).fullmatch(text)
        if found is not None:
            return Message(template.english, *(found.group(s.name) for s in template.slots))
    from zhuoji.rules.glossary import MissingChinese, is_strict

    if is_strict():
        raise MissingChinese(f"no Chinese for Click's sentence {text!r}: add its template to "
                             "[message.click] of rules/glossary.toml, or raise the "
                             "BadParameter with a Message")
    return text


class ZhuojiGroup(TyperGroup):
    """The root command: one line per error, the exit statuses above."""

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, ClickException):
            raise
        except Exception as exc:
            if _is_broken_pipe(exc):
                _quiet_pipe()
                raise typer.Exit(EXIT_OK) from None
            if is_debug():
                traceback.print_exception(exc, file=sys.stderr)
            if _is_from(exc, "duckdb"):
                raise fail_sql(exc) from None
            _emit(describe_error(exc))
            raise typer.Exit(EXIT_ERROR) from None

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: Context | None = None,
        **extra: Any,
    ) -> Context:
        # The root's eager options print here (--help, --version), before invoke: a closed
        # pipe or a full disk ends them as they end a command (Click's own rule would exit
        # with 1, or print a traceback).
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except OSError as exc:
            raise typer.Exit(_output_failed(exc)) from None

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        escape_unencodable()  # for typer's CliRunner too, whose streams are its own
        try:
            result = super().main(
                args=args,
                prog_name=prog_name or "zhuoji",
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            code = result if isinstance(result, int) else EXIT_OK
        except NoArgsIsHelpError as exc:
            sys.stderr.write(exc.format_message() + "\n")
            code = EXIT_ERROR
        except UsageError as exc:
            ctx = exc.ctx
            if ctx is None:
                hint = ""
            elif _chinese():
                hint = f"（见 `{ctx.command_path} --help`）"
            else:
                hint = f" (see `{ctx.command_path} --help`)"
            sys.stderr.write(f"{error_line(_usage_message(exc))}{hint}\n")
            code = EXIT_ERROR
        except ClickException as exc:
            sys.stderr.write(f"{error_line(_usage_message(exc))}\n")
            code = EXIT_ERROR
        except typer.Abort:
            sys.stderr.write(error_line(_message("interrupted")) + "\n")
            code = EXIT_INTERRUPTED
        code = _flush_stdout(code)
        if standalone_mode:
            sys.exit(code)
        return code
