"""The command line's and the pages' words in the chosen language, from the glossary.

English stays exactly as the commands print it; Chinese comes from ``rules/glossary.toml``
(:mod:`zhuoji.rules.glossary`): the engine's and the parsers' messages by
:func:`zhuoji.rules.glossary.render` (from each message's template and values), the other
sentences by :func:`zhuoji.rules.glossary.text`.
"""

from __future__ import annotations

from zhuoji.parsers.errors import MalformedLogError
from zhuoji.rules.glossary import Lang, render, text

__all__ = ["malformed_text"]


def malformed_text(error: MalformedLogError, lang: Lang) -> str:
    """The sentence of a malformed file or game (``str(error)`` in English): where (file,
    line, column, game, field) and why, the reason rendered in ``lang``."""
    if lang == "en":
        return str(error)
    head = error.path if error.path is not None else "<input>"
    if error.line is not None:
        if error.column is not None:
            head = text("{path} line {line} column {column}", lang, path=head,
                        line=error.line, column=error.column)
        else:
            head = text("{path} line {line}", lang, path=head, line=error.line)
    where = [head]
    if error.game_id is not None:
        where.append(text("game {game}", lang, game=repr(error.game_id)))
    if error.json_path:
        where.append(text("field {field}", lang, field=error.json_path))
    sentence = "，".join(where) + "：" + render(error.reason, lang)
    if error.more:
        one = " (and {n} more fault)" if error.more == 1 else " (and {n} more faults)"
        sentence += text(one, lang, n=error.more)
    return sentence
