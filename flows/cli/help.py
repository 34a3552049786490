"""``--help`` in the language of the invocation: the commands' help in Chinese for ``zh``.

A command's help (its docstring), its options' and arguments' help and its epilog are the
English written where the command is defined; their Chinese is the glossary's ``[help]``
table (``rules/glossary.toml``), one entry per paragraph, keyed by the English paragraph
with its white space collapsed. :class:`HelpCommand` and :class:`HelpGroup` (and the root,
:class:`zhuoji.flows.cli.app.RootGroup`, through :class:`SpeaksHelp`) print the help of
a command in the language of the invocation (``--lang``, given to the root or to the
command, before or after ``--help``, else the locale): in English exactly as Click
writes it; in Chinese each paragraph by the table, Click's headings (``Usage:``,
``Options:``, ``[default: …]``) in Chinese too, wrapped at half the width (a Chinese
character takes two columns). :func:`speak_help` gives every command of the application
these classes, where :func:`zhuoji.flows.cli.main.build_app` puts them on the root.

A paragraph the table lacks is shown in English, or, under ``ZHUOJI_STRICT_GLOSSARY=1``
(the tests), raises :class:`zhuoji.rules.glossary.MissingChinese`; the tests walk every
command (``tests/flows/test_lang_zh.py``). The glossary is imported only for a Chinese
help and for the root's (which names the families by their words): an English command's
``--help`` imports nothing more than Typer.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

from typer.core import TyperCommand, TyperGroup

from zhuoji.flows.cli.lang import current_lang, use_lang
from zhuoji.flows.runtime.language import choose_lang

if TYPE_CHECKING:
    import typer

__all__ = [
    "HelpCommand",
    "HelpGroup",
    "SpeaksHelp",
    "help_paragraphs",
    "speak_help",
    "translate_help",
]

_HEADINGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Usage: ", re.MULTILINE), "用法："),
    (re.compile(r"^(\s*)Arguments:$", re.MULTILINE), r"\1参数："),
    (re.compile(r"^(\s*)Options:$", re.MULTILINE), r"\1选项："),
    (re.compile(r"^(\s*)Commands:$", re.MULTILINE), r"\1命令："),
    (re.compile(r"\[required\]"), "[必填]"),
    (re.compile(r"\[default: ?"), "[默认："),
    (re.compile(r"\[env var: "), "[环境变量："),
    (re.compile(r"\bx>="), "≥"),
    (re.compile(r"\bx<="), "≤"),
)
"""Click's own words in a help, in Chinese."""

_PARAGRAPH = re.compile(r"\n[ \t]*\n")


def help_paragraphs(help_text: str | None) -> list[str]:
    """The paragraphs of a help text as Click shows them (the docstring's indentation
    removed, the part after ``\\f`` left out), each with its white space collapsed."""
    if not help_text:
        return []
    text = inspect.cleandoc(help_text).partition("\f")[0]
    return [" ".join(p.split()) for p in _PARAGRAPH.split(text) if p.strip()]


def translate_help(help_text: str | None) -> str | None:
    """A help text in Chinese, paragraph by paragraph from the glossary's ``[help]``."""
    if not help_text:
        return help_text
    from zhuoji.rules.glossary import MissingChinese, is_strict
    from zhuoji.rules.glossary import help_text as chinese_of

    out = []
    for paragraph in help_paragraphs(help_text):
        chinese = chinese_of(paragraph)
        if chinese is None:
            if is_strict():
                raise MissingChinese(
                    f"no Chinese for the help paragraph {paragraph!r}: add it to the "
                    "[help] table of rules/glossary.toml")
            chinese = paragraph
        out.append(chinese)
    return "\n\n".join(out)


def _take_lang(args: Sequence[str]) -> None:
    """``--lang X`` (or ``--lang=X``) among a command's arguments, taken before any
    eager option (``--help``) runs."""
    for i, arg in enumerate(args):
        if arg == "--":
            return
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--lang="):
            value = arg.partition("=")[2]
        else:
            continue
        if value.lower() in ("zh", "en"):
            use_lang(value)


_WIDE = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
"""Characters a terminal shows two columns wide (CJK, full-width signs)."""
_CJK = re.compile(f"[{_WIDE}]")
_TOKEN = re.compile(f"[{_WIDE}]|\\s+|[^\\s{_WIDE}]+")
_NO_LINE_START = frozenset("，。；：、）」』】》？！")


def _columns(text: str) -> int:
    """The terminal columns of ``text``: two for a Chinese character or full-width sign."""
    return len(text) + len(_CJK.findall(text))


def wrap_columns(paragraph: str, width: int) -> list[str]:
    """A paragraph as lines of at most ``width`` terminal columns: a Chinese character
    may end a line anywhere, an English word (an option, a path) is kept whole, a
    closing sign never starts a line."""
    lines: list[str] = []
    line = ""
    for token in _TOKEN.findall(paragraph):
        if token.isspace():
            if line:
                line += " "
            continue
        if line and _columns(line) + _columns(token) > width and token not in _NO_LINE_START:
            lines.append(line.rstrip())
            line = ""
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _prewrapped(text: str, width: int) -> str:
    """``text`` wrapped by :func:`wrap_columns`, each paragraph marked for Click to keep
    as it is (``\b``); a text without Chinese is left to Click."""
    if not _CJK.search(text):
        return text
    return "\n\n".join("\b\n" + "\n".join(wrap_columns(p, width))
                       for p in text.split("\n\n"))


@cache
def _chinese_formatter(base: Any) -> Any:
    """Click's help formatter (``base``), wrapping Chinese by terminal columns (Click
    counts characters, and a Chinese character takes two columns)."""

    def write_text(self: Any, text: str) -> None:
        width = max(self.width - self.current_indent, 11)
        base.write_text(self, _prewrapped(text, width))

    def write_dl(self: Any, rows: Sequence[tuple[str, str]], col_max: int = 30,
                 col_spacing: int = 2) -> None:
        rows = list(rows)
        first = min(max((len(r[0]) for r in rows), default=0), col_max) + col_spacing
        width = max(self.width - first - 2 - self.current_indent, 10)
        base.write_dl(self, [(a, _prewrapped(b, width)) for a, b in rows],
                      col_max, col_spacing)

    return type("ChineseHelpFormatter", (base,),
                {"write_text": write_text, "write_dl": write_dl})


@contextmanager
def _chinese(command: Any, ctx: Any) -> Iterator[None]:
    """The command's and its parameters' help in Chinese while its help is written."""
    saved: list[tuple[Any, str, Any]] = []
    try:
        for obj, name in [(command, "help"), (command, "epilog"),
                          *((p, "help") for p in command.get_params(ctx))]:
            value = getattr(obj, name, None)
            if isinstance(value, str) and value:
                saved.append((obj, name, value))
                setattr(obj, name, translate_help(value))
        yield
    finally:
        for obj, name, value in reversed(saved):
            setattr(obj, name, value)


class SpeaksHelp:
    """The help of a command in the language of the invocation (see the module)."""

    # Any: Click's classes or the copy recent Typer releases carry (typer._click)
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if ctx.parent is None:  # the root: an earlier invocation's choice is forgotten
            choose_lang(None)
        _take_lang(args)
        return super().parse_args(ctx, args)  # type: ignore[misc, no-any-return]

    def get_help(self, ctx: Any) -> str:
        if current_lang() != "zh":
            return super().get_help(ctx)  # type: ignore[misc, no-any-return]
        probe = ctx.make_formatter()
        formatter = _chinese_formatter(type(probe))(width=probe.width)  # type: ignore[arg-type]
        with _chinese(self, ctx):
            self.format_help(ctx, formatter)  # type: ignore[attr-defined]
        text: str = formatter.getvalue().rstrip("\n")
        for pattern, chinese in _HEADINGS:
            text = pattern.sub(chinese, text)
        return text

    def get_short_help_str(self, limit: int = 45) -> str:
        if current_lang() != "zh":
            return super().get_short_help_str(limit)  # type: ignore[misc, no-any-return]
        english = getattr(self, "short_help", None) or getattr(self, "help", None)
        chinese = translate_help(english) or ""
        first = chinese.split("\n\n", 1)[0]
        first = re.split(r"(?<=[。；])", first, maxsplit=1)[0].rstrip("。；")
        return first if len(first) <= limit else first[: max(limit - 1, 1)] + "…"


class HelpCommand(SpeaksHelp, TyperCommand):
    """A command whose help speaks the invocation's language."""


class HelpGroup(SpeaksHelp, TyperGroup):
    """A group of commands (``zhuoji rules``) whose help speaks the invocation's language."""


def speak_help(app: typer.Typer) -> None:
    """Give every command of ``app`` and of its groups (recursively) the classes above,
    unless it names a class of its own."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand) or not isinstance(info.cls, type):  # not given
            info.cls = HelpCommand
    for group in app.registered_groups:
        sub = group.typer_instance
        if sub is None:
            continue
        if group.cls is TyperGroup or not isinstance(group.cls, type):  # not given
            group.cls = HelpGroup
        if sub.info.cls is TyperGroup or not isinstance(sub.info.cls, type):
            sub.info.cls = HelpGroup
        speak_help(sub)
