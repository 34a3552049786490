"""``--lang zh|en``: the language of a command's output, on every command.

The default comes from the locale: the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
that is set decides, ``zh`` for ``zh_*`` (``zh_CN.UTF-8``, ``zh_TW``), else ``en``. A value
other than ``zh`` or ``en`` is a usage error (exit status 2, one line on stderr). The words
come from the glossary (:mod:`zhuoji.rules.glossary`), imported when a command runs.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from zhuoji.flows.runtime.language import Lang, choose_lang, current_lang, locale_lang

__all__ = ["LangChoice", "LangOption", "current_lang", "locale_lang", "t", "use_lang"]

class LangChoice(StrEnum):
    ZH = "zh"
    EN = "en"


LangOption = Annotated[
    LangChoice | None,
    typer.Option(
        "--lang",
        case_sensitive=False,
        show_default=False,
        help="Language of the output: zh (中文) or en. Default: from the locale "
        "(LC_ALL, LC_MESSAGES, LANG; zh_* gives zh).",
    ),
]
"""The option every command takes (``lang: LangOption = None``)."""

def use_lang(value: LangChoice | str | None, *, reset: bool = False) -> Lang:
    """Take the command's ``--lang`` (None: keep what the root command was given, or the
    locale's); ``reset`` (the root command) forgets an earlier invocation's choice."""
    if reset:
        choose_lang(None)
    if value is not None:
        choose_lang("zh" if str(value).lower() == "zh" else "en")
    return current_lang()


def t(english: str, /, **fields: object) -> str:
    """A command's fixed text (a label, a column's header, an informational line) in the
    invocation's language: the glossary's ``[text]`` entry keyed by the English, formatted
    with ``fields``."""
    from zhuoji.rules.glossary import text

    return text(english, current_lang(), **fields)
