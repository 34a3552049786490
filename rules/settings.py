"""The settings core every rule family shares: the ruleset base, setting names, overrides.

Each family (:mod:`zhuoji.rules.families`) has its own settings model, a frozen pydantic model
derived from :class:`RulesetBase`. The base holds what names a ruleset (``name``,
``title``, ``seed``, ``article``) and the family it belongs to (``family``); the family's
model adds its settings, at the top level or grouped in frozen sections (pydantic models)
that the model lists in :attr:`RulesetBase.flat_prefixes`.

Settings are named by dotted paths (``"chickens.scope"``) or by flat aliases that a log's
``rule_overrides`` may use (``"chicken_scope"``: the section's prefix and the field).
Everything here works on any family's model: :meth:`RulesetBase.setting_paths`,
:meth:`RulesetBase.parse_setting_key`, :func:`settings_of`, :func:`diff_settings`,
:func:`apply_overrides` (which replaces single settings and re-validates).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from functools import cache
from typing import Any, ClassVar, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from zhuoji.rules.messages import Message

__all__ = [
    "IDENTITY_FIELDS",
    "MAX_HAND_VALUE",
    "MAX_STAKE",
    "RulesetBase",
    "RulesetError",
    "UnknownSettingError",
    "apply_overrides",
    "diff_settings",
    "excerpt",
    "format_setting",
    "said",
    "setting_value",
    "settings_of",
]


class RulesetError(ValueError):
    """A ruleset, a preset or a setting that cannot be used; the message names it."""


class UnknownSettingError(RulesetError):
    """An override names no setting."""


MAX_STAKE = 2**31 - 1
"""The largest ``base_stake`` a log may give (the log format bounds it to the warehouse's
32-bit column); every amount of a hand is a value of the ruleset times the stake."""

MAX_HAND_VALUE = 2**31
"""What one hand may move at most, in values before the stake: the sum of its ledger items'
values. Each family bounds its settings (``le=`` on every value and multiplier) so that
its worst-case hand stays within it; at the largest stake a hand then moves at most
``2**31 * (2**31 - 1) < 2**62`` points, so every ledger item, every delta and the hand's
sum fit a signed 64-bit integer (the warehouse's BIGINT, JSON tools' integers) twice over
(docs/robustness.md, "Settlement amounts")."""

EXCERPT_CHARS = 60
"""Characters of a user's value an error message quotes (then ``…``)."""


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters and ``…``: how an error quotes what a
    user wrote, however long it is."""
    text = repr(value) if not isinstance(value, str) or len(value) <= 4 * limit else repr(
        value[: 2 * limit])
    return text if len(text) <= limit else text[:limit] + "…"


IDENTITY_FIELDS: tuple[str, ...] = ("name", "title", "seed", "article", "family")
"""Top-level fields that name a ruleset rather than set a rule: overrides cannot touch
them and the ruleset fingerprint leaves them out (a family's settings are its own)."""

_T = TypeVar("_T")


_DERIVED_KEY = " derived"
"""The instance ``__dict__`` key of a ruleset's :class:`_Derived` (no field can have it)."""


class _Derived:
    """Values computed from one ruleset object, kept on it (see :meth:`RulesetBase.derived`).

    It compares equal to any other holder, so that two equal rulesets stay equal whatever
    each has computed, and it is not carried over by a copy (a copy may be an updated one).
    """

    __slots__ = ("owner", "values")

    def __init__(self) -> None:
        self.owner = 0
        self.values: dict[object, object] = {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Derived)

    def __hash__(self) -> int:
        return 0

    def __copy__(self) -> _Derived:
        return _Derived()

    def __deepcopy__(self, memo: dict[int, object]) -> _Derived:
        return _Derived()

    def __reduce__(self) -> tuple[type[_Derived], tuple[()]]:
        return (_Derived, ())  # a pickled ruleset computes its values again


class RulesetBase(BaseModel):
    """What every family's settings model starts with. Nothing in the engine branches on
    ``name``; ``family`` chooses the family's settings, patterns and settlement."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    flat_prefixes: ClassVar[Mapping[str, str]] = {}
    """Section field -> flat alias prefix (``"chickens"`` -> ``"chicken_"``): a model's
    sections, each a pydantic model whose fields are settings."""

    name: str = Field(description="preset name")
    title: str = Field("", description="one-line title")
    seed: str = Field("", description="seed document the preset follows")
    article: str = Field("", description="article of the seed document")
    family: str = Field(description="the rule family (a folder of rules/families/)")

    # --- values computed once per ruleset ------------------------------------------------

    def derived(self, compute: Callable[[Any], _T]) -> _T:
        """``compute(self)``, computed once per ruleset object and kept on it (the one place
        values derived from a ruleset live; ``compute`` is the key)."""
        slots = self.__dict__
        holder = slots.get(_DERIVED_KEY)
        if holder is None or holder.owner != id(self):  # a fresh ruleset, or a copy
            holder = _Derived()
            holder.owner = id(self)
            slots[_DERIVED_KEY] = holder  # beside the fields: no field, dump or hash sees it
        values = holder.values
        if compute in values:
            value: Any = values[compute]
            return value  # type: ignore[no-any-return]
        result = values[compute] = compute(self)
        return result

    # --- setting names -------------------------------------------------------------------

    @classmethod
    def section_model(cls, section: str) -> type[BaseModel]:
        annotation = cls.model_fields[section].annotation
        assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
        return annotation

    @classmethod
    def generate_setting_paths(cls) -> Iterator[str]:
        """Every setting's dotted path, in declaration order."""
        for field in cls.model_fields:
            if field in IDENTITY_FIELDS:
                continue
            if field in cls.flat_prefixes:
                for sub in cls.section_model(field).model_fields:
                    yield f"{field}.{sub}"
            else:
                yield field

    @classmethod
    def setting_paths(cls) -> tuple[str, ...]:
        """Every setting's dotted path, in declaration order (computed once per model)."""
        return _paths(cls)

    @classmethod
    def flat_alias(cls, path: str) -> str:
        """The flat alias of a setting path (top-level settings are their own alias)."""
        if "." not in path:
            return path
        section, field = path.split(".")
        return cls.flat_prefixes[section] + field

    @classmethod
    def parse_setting_key(cls, key: str) -> str:
        """A dotted path or flat alias to the setting's dotted path; raises
        :class:`UnknownSettingError`."""
        paths = _paths(cls)
        if key in paths:
            return key
        aliases = _aliases(cls)
        if key in aliases:
            return aliases[key]
        known = sorted(set(paths) | set(aliases))
        # no setting name is near a long key (and difflib's time grows with its length)
        close = difflib.get_close_matches(key, known, n=3) if len(key) <= 64 else []
        if key in IDENTITY_FIELDS:
            raise UnknownSettingError(Message(
                "unknown setting {k:any} (it names the ruleset and cannot be overridden)",
                excerpt(key)))
        if close:
            raise UnknownSettingError(Message("unknown setting {k:any} (did you mean {c:any}?)",
                                              excerpt(key), ", ".join(repr(c) for c in close)))
        raise UnknownSettingError(Message("unknown setting {k:any}", excerpt(key)))

    @classmethod
    def setting_description(cls, path: str) -> str:
        """The description of a setting (its pydantic field description)."""
        if "." in path:
            section, field = path.split(".")
            info = cls.section_model(section).model_fields[field]
        else:
            info = cls.model_fields[path]
        return info.description or ""


@cache
def _paths(model: type[RulesetBase]) -> tuple[str, ...]:
    return tuple(model.generate_setting_paths())


@cache
def _aliases(model: type[RulesetBase]) -> dict[str, str]:
    return {model.flat_alias(path): path for path in _paths(model) if "." in path}


def setting_value(ruleset: RulesetBase, path: str) -> object:
    """The value of one setting by its dotted path (or flat alias)."""
    value: object = ruleset
    for part in type(ruleset).parse_setting_key(path).split("."):
        value = getattr(value, part)
    return value


def settings_of(ruleset: RulesetBase) -> dict[str, object]:
    """Every setting's value by dotted path, in :meth:`RulesetBase.setting_paths` order."""
    return {path: setting_value(ruleset, path) for path in type(ruleset).setting_paths()}


def format_setting(value: object) -> str:
    """A setting's value as short readable text (TOML-like scalars). A section entry (a
    pydantic model in a tuple) may give its own text with a ``setting_text()`` method."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return "; ".join(format_setting(v) for v in value) or "(none)"
    text_of = getattr(value, "setting_text", None) if isinstance(value, BaseModel) else None
    if callable(text_of):
        return str(text_of())
    return str(value)


def diff_settings(a: RulesetBase, b: RulesetBase) -> list[tuple[str, object, object]]:
    """Settings whose values differ: ``(path, value in a, value in b)`` in path order (the
    two of one family; raises :class:`RulesetError` otherwise)."""
    if type(a) is not type(b):
        raise RulesetError(Message(
            "rulesets {a:any} ({fa:any}) and {b:any} ({fb:any}) are of different families: "
            "their settings do not compare", repr(a.name), a.family, repr(b.name), b.family))
    sa, sb = settings_of(a), settings_of(b)
    return [(p, sa[p], sb[p]) for p in type(a).setting_paths() if sa[p] != sb[p]]


_R = TypeVar("_R", bound=RulesetBase)


def apply_overrides(ruleset: _R, overrides: Mapping[str, object]) -> _R:
    """A copy of ``ruleset`` with single settings replaced and the whole re-validated.

    Keys are dotted paths or flat aliases; values are what JSON or TOML gives (enum
    choices as their text, section entries as tables). Raises :class:`RulesetError`
    naming the ruleset and the setting as the caller wrote it.
    """
    model = type(ruleset)
    data: dict[str, Any] = ruleset.model_dump()
    key_of: dict[str, str] = {}
    for key in sorted(overrides):
        try:
            path = model.parse_setting_key(key)
        except UnknownSettingError as exc:
            raise UnknownSettingError(Message("ruleset {r:any}: {why:said}", repr(ruleset.name),
                                              said(exc))) from None
        if path in key_of:
            raise RulesetError(Message(
                "ruleset {r:any}: setting {p:any} is overridden twice ({a:any} and {b:any})",
                repr(ruleset.name), repr(path), repr(key_of[path]), repr(key)))
        key_of[path] = key
        wrong = _type_mismatch(model, path, overrides[key])
        if wrong is not None:
            name = repr(path) if key == path else f"{key!r} ({path})"
            raise RulesetError(Message(
                "ruleset {r:any}: bad override: setting {s:any} = {v:any}: {why:said}",
                repr(ruleset.name), name, excerpt(overrides[key]), wrong))
        target = data
        parts = path.split(".")
        for part in parts[:-1]:
            target = target[part]
        target[parts[-1]] = overrides[key]
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RulesetError(Message(
            "ruleset {r:any}: bad override: {why:said*; }", repr(ruleset.name),
            _describe_errors(exc, key_of))) from None


def said(exc: BaseException) -> str:
    """What ``exc`` says: the :class:`~zhuoji.rules.messages.Message` it was raised with,
    else its text (another program's words, shown as they are)."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Message):
        return exc.args[0]
    return Message("{d:external}", str(exc))


def _describe_errors(exc: ValidationError, key_of: Mapping[str, str]) -> list[Message]:
    parts: list[Message] = []
    for err in exc.errors():
        told = _told(err)
        if not err["loc"]:  # a rule between settings: its message names them
            # pydantic's words around the model's own rule, as they are
            parts.append(told or Message("{d:external}", str(err["msg"])))
            continue
        where = ".".join(str(p) for p in err["loc"])
        path = ".".join(str(p) for p in err["loc"][:2])
        written = key_of.get(path) or key_of.get(str(err["loc"][0]) if err["loc"] else "")
        name = repr(where) if written in (None, where) else f"{written!r} ({where})"
        if told is not None:
            parts.append(Message("setting {s:any} = {v:any}: {d:said}", name,
                                 excerpt(err.get("input")), told))
            continue
        parts.append(Message("setting {s:any} = {v:any}: {d:external}", name,
                             excerpt(err.get("input")), str(err["msg"])))
    return parts


def _told(err: Any) -> Message | None:
    """A model's own rule broken, raised as a ``ValueError`` of a :class:`Message`: pydantic's
    words (``Value error, ...``) around that message, which the glossary translates; None
    for pydantic's own errors."""
    ctx = err.get("ctx") or {}
    cause = ctx.get("error")
    message = cause.args[0] if isinstance(cause, ValueError) and cause.args else None
    if isinstance(message, Message) and str(err["msg"]) == f"Value error, {message}":
        return Message("Value error, {why:said}", message)
    return None


def _field_of(model: type[RulesetBase], path: str) -> FieldInfo:
    if "." in path:
        section, field = path.split(".")
        return model.section_model(section).model_fields[field]
    return model.model_fields[path]


def _type_mismatch(model: type[RulesetBase], path: str, value: object) -> str | None:
    """Why ``value`` is of the wrong JSON type for the setting at ``path``, or None.

    Strict where pydantic's lax mode would convert: a whole number (``int``) takes no
    ``true`` nor ``2.0`` nor ``"2"``, a switch (``bool``) no ``"true"`` nor ``1``, a choice
    (an enum, a ``Literal``) only its own values' type, and so for each field of a section's
    entries (``chickens.standing``). A setting whose field converts its input itself (a
    ``BeforeValidator``: tiles as text, a choice that also takes ``true``) is left to its
    validator."""
    return _mismatch(_field_of(model, path), value)


def _mismatch(info: FieldInfo, value: object) -> str | None:
    if any(isinstance(m, BeforeValidator) for m in info.metadata):
        return None
    annotation = info.annotation
    args = get_args(annotation)
    if (get_origin(annotation) is tuple and len(args) == 2 and args[1] is Ellipsis
            and isinstance(args[0], type) and issubclass(args[0], BaseModel)
            and isinstance(value, list)):  # a section's entries: each entry's fields
        fields = args[0].model_fields
        for n, entry in enumerate(value):
            if not isinstance(entry, dict):
                continue
            for key, item in entry.items():
                why = _mismatch(fields[key], item) if key in fields else None
                if why is not None:
                    return Message("entry {n:n}, {k:any} = {v:any}: {why:said}", n, repr(key),
                                   excerpt(item), why)
        return None
    if get_origin(annotation) is Literal:
        choices = get_args(annotation)
        if value in choices and all(type(c) is type(value) for c in choices):
            return None
        return Message("expected one of {c:any}", ", ".join(repr(c) for c in choices))
    if annotation is bool:
        return None if isinstance(value, bool) else Message(
            "expected true or false (a JSON boolean)")
    if annotation is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return None
        return Message("expected a whole number (a JSON integer)")
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        if isinstance(value, str):
            return None
        return Message("expected one of {c:any}", ", ".join(repr(c.value) for c in annotation))
    return None
