"""A message of the engine or the parsers: one template of the glossary and its values.

A :class:`Message` is the English sentence the engine writes (it *is* that ``str``: a
finding's ``message``, a ledger item's ``detail``, an explanation line, a parser's reason
read as text are the same characters as before), and it keeps what it was made of: its
template and the values of the template's placeholders. The template is the English form
of a ``[message.<group>]`` entry of ``rules/glossary.toml`` with its ``<section.key>``
terms written out (``"seat {seat} discards {tile}"``, ``"{e:event}{r:after_event}"``); its
Chinese is rendered at the edge by :func:`zhuoji.rules.glossary.render`, from the template
and the values, never by reading the English back.

A placeholder is ``{name}`` or ``{name:kind}``; ``{name:kind*SEP}`` takes a sequence of
values joined by ``SEP``. In English each value is written as an f-string writes it
(``format(value, "")``): a value of a clause (``{e:event}``) is itself a :class:`Message`
of that group, or the text of a template of the group that has no placeholder
(``"ponged"``).

Not compiled (a ``str`` subclass is no native class); the compiled modules make messages
as they made the sentences, at the same cost (the English is formatted once, when the
message is made, as the f-string was).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["Message", "Slot", "cached", "slots"]

_PLACEHOLDER = re.compile(r"\{([a-z_]+?)(\d*)(?::([a-z_]+)(?:\*([^}]+))?)?\}")


class Slot:
    """One placeholder of a template: its name, kind, and separator when repeated."""

    __slots__ = ("kind", "name", "sep")

    def __init__(self, name: str, kind: str, sep: str | None) -> None:
        self.name = name
        self.kind = kind
        self.sep = sep


_Pieces = tuple[tuple[str, ...], tuple[Slot, ...]]
_PARSED: dict[str, _Pieces] = {}
_FORMAT: dict[str, tuple[str, int] | None] = {}
"""Each template as a ``str.format`` pattern and its number of placeholders (None for a
template with a repeated placeholder, which :func:`_english` writes)."""


def _parse(template: str) -> _Pieces:
    texts: list[str] = []
    found: list[Slot] = []
    at = 0
    for m in _PLACEHOLDER.finditer(template):
        base, digits, kind, sep = m.groups()
        texts.append(template[at : m.start()])
        found.append(Slot(base + digits, kind or base, sep))
        at = m.end()
    texts.append(template[at:])
    pieces = (tuple(texts), tuple(found))
    _PARSED[template] = pieces
    return pieces


def _pattern(template: str) -> tuple[str, int] | None:
    texts, found = _PARSED.get(template) or _parse(template)
    pattern: tuple[str, int] | None = None
    if all(slot.sep is None for slot in found):
        escaped = [t.replace("{", "{{").replace("}", "}}") for t in texts]
        pattern = ("{}".join(escaped), len(found))
    _FORMAT[template] = pattern
    return pattern


def slots(template: str) -> tuple[Slot, ...]:
    """The placeholders of a template, in order."""
    pieces = _PARSED.get(template)
    return (pieces if pieces is not None else _parse(template))[1]


def _english(template: str, values: tuple[object, ...]) -> str:
    pieces = _PARSED.get(template)
    texts, found = pieces if pieces is not None else _parse(template)
    if len(found) != len(values):
        raise TypeError(f"the template {template!r} takes {len(found)} values, "
                        f"not {len(values)}")
    if not found:
        return template
    out = [texts[0]]
    for slot, value, text in zip(found, values, texts[1:], strict=True):
        if slot.sep is None:
            out.append(format(value, ""))
        else:
            out.append(slot.sep.join([format(v, "") for v in _items(value)]))
        out.append(text)
    return "".join(out)


def _items(value: object) -> Sequence[object]:
    if isinstance(value, (list, tuple)):
        return value
    raise TypeError(f"a repeated placeholder takes a list or a tuple, not {value!r}")


class Message(str):
    """An English sentence made from a glossary template and its values (see the module's
    docstring). ``Message("seat {seat} draws {tile}", 0, "5m") == "seat 0 draws 5m"``."""

    template: str
    values: tuple[object, ...]

    def __new__(cls, template: str, *values: object) -> Message:
        try:
            pattern = _FORMAT[template]
        except KeyError:
            pattern = _pattern(template)
        if pattern is not None and pattern[1] == len(values):
            text = pattern[0].format(*values)  # one call: as cheap as the f-string was
        else:
            text = _english(template, values)  # (a repeated placeholder, or a wrong count)
        self = str.__new__(cls, text)
        self.template = template
        self.values = values
        return self

    def __reduce__(self) -> tuple[object, ...]:  # pickled as its template and values
        return (Message, (self.template, *self.values))

    @property
    def params(self) -> dict[str, object]:
        """The values by placeholder name."""
        return {slot.name: value for slot, value in zip(slots(self.template), self.values,
                                                         strict=True)}


_CACHE: dict[tuple[object, ...], Message] = {}
_CACHE_LIMIT = 8192
"""Messages kept by :func:`cached` (emptied when full, as the engine's memo tables are)."""


def cached(template: str, *values: object) -> Message:
    """``Message(template, *values)``, made once for the same template and (hashable)
    values: the few that recur hand after hand (a kong's detail, a seat's name of a
    kong) cost a dictionary lookup."""
    key = (template, *values)
    message = _CACHE.get(key)
    if message is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        message = _CACHE[key] = Message(template, *values)
    return message
