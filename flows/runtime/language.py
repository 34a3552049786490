"""The language of this invocation: the command line's ``--lang``
(:mod:`zhuoji.flows.cli.lang`) sets it, and the runtime's notices on standard error (a wait
for the local Prefect server's lock) read it, as the command's own lines do.

Only the standard library is imported here (``zhuoji --help`` imports this module).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

__all__ = ["Lang", "choose_lang", "current_lang", "locale_lang"]

Lang = Literal["en", "zh"]

_state: dict[str, Lang | None] = {"lang": None}


def locale_lang(environ: Mapping[str, str] | None = None) -> Lang:
    """``zh`` when the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set (and not
    empty) starts with ``zh``, else ``en`` (:func:`zhuoji.rules.glossary.default_lang`, without
    importing the engine's package)."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def choose_lang(lang: Lang | None) -> None:
    """The language asked for (``--lang``); None: the locale's."""
    _state["lang"] = lang


def chosen_lang() -> Lang | None:
    """The language asked for, None when none was."""
    return _state["lang"]


def current_lang() -> Lang:
    """The language of this invocation: the one asked for, else the locale's."""
    chosen = _state["lang"]
    return chosen if chosen is not None else locale_lang()
