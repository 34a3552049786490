"""The parsers' errors: a small family of ``ValueError`` subclasses.

:class:`MalformedLogError` is what a reader yields or raises for a log it cannot read: it
names the file, the line (stream encoding) or the JSON path (document encoding), and what
was wrong, and ``str()`` of it is one readable sentence such as
``data/x.jsonl line 42, field hands[0].events[3].tile: unknown tile '10m'``.
"""

from __future__ import annotations

from zhuoji.rules.messages import Message

EXCERPT_CHARS = 60
"""Characters of a value from the input that an error message quotes (then ``…``)."""


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters and ``…``: how an error quotes what a
    log holds, however long it is."""
    if isinstance(value, str) and len(value) > 4 * limit:
        value = value[: 2 * limit]  # (no need to escape a megabyte to show sixty characters)
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def system_reason(exc: OSError) -> str:
    """The system's words for ``exc`` (``exc.strerror``, ``Permission denied``) as a
    message (its Chinese is the glossary's ``[message.strerror]``), else its text."""
    if isinstance(exc.strerror, str) and "{" not in exc.strerror:
        return Message(exc.strerror)
    return str(exc)


class TileNotationError(ValueError):
    """A text that is no accepted spelling of a tile."""

    def __init__(self, text: str, note: str = "") -> None:
        super().__init__(Message("unknown tile {q:quoted} ({note:any})", excerpt(text), note)
                         if note else Message("unknown tile {q:quoted}", excerpt(text)))
        self.text = text


class MalformedLogError(ValueError):
    """A log file, or one game in it, that does not follow ``zhuoji-log/1``.

    Attributes:
        reason: what was wrong, a short phrase.
        path: the file, when reading one (``None`` for bytes or streams).
        line: 1-based line number in the file (stream encoding, or a JSON syntax error).
        column: 1-based column of a JSON syntax error, when known.
        json_path: where in the game's document the fault is, e.g. ``hands[3].events[17].tile``.
        game_id: the game's id when it could be read.
        more: how many further faults the same game has (only the first is described).
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        json_path: str | None = None,
        game_id: str | None = None,
        more: int = 0,
    ) -> None:
        self.reason = reason
        self.path = path
        self.line = line
        self.column = column
        self.json_path = json_path
        self.game_id = game_id
        self.more = more
        super().__init__(self._sentence())

    def _sentence(self) -> str:
        """The sentence, a message of the glossary's ``where`` and ``message`` templates
        (``"{p:any} line {l:n}, game {g:quoted}, field {f:any}"``: its Chinese names the
        same place)."""
        template = "{p:any}"
        values: list[object] = [self.path if self.path is not None else "<input>"]
        if self.line is not None:
            template += " line {l:n}"
            values.append(self.line)
            if self.column is not None:
                template += " column {c:n}"
                values.append(self.column)
        if self.game_id is not None:
            template += ", game {g:quoted}"
            values.append(repr(self.game_id))
        if self.json_path:
            template += ", field {f:any}"
            values.append(self.json_path)
        where = Message(template, *values)
        if self.more == 1:
            return Message("{w:where}: {r:parse} (and {n} more fault)", where, self.reason, 1)
        if self.more:
            return Message("{w:where}: {r:parse} (and {n} more faults)", where, self.reason,
                           self.more)
        return Message("{w:where}: {r:parse}", where, self.reason)

    def with_location(
        self, *, path: str | None = None, line: int | None = None, game_id: str | None = None
    ) -> MalformedLogError:
        """A copy with the file, line or game filled in where this one lacks them."""
        return MalformedLogError(
            self.reason,
            path=self.path if self.path is not None else path,
            line=self.line if self.line is not None else line,
            column=self.column,
            json_path=self.json_path,
            game_id=self.game_id if self.game_id is not None else game_id,
            more=self.more,
        )
