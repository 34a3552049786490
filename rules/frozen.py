"""Frozen value classes that are quick to build: :func:`quick_init`.

The engine's values (events, facts, settlements) are frozen, slotted dataclasses. The
``__init__`` that :func:`dataclasses.dataclass` writes for a frozen class sets each field
with ``object.__setattr__``, which looks the field up on the class every time: building a
ten-field value takes about twice as long as it needs to, and a hand builds some 130
fields' worth of them (a few per cent of a worker's time in an ingest).

:func:`quick_init` replaces that ``__init__`` with one that sets each slot through the
slot's own descriptor, looked up once. Nothing else changes: the same parameters in the
same order, keyword-only ones and defaults included; the instance is as frozen as before
(assignment raises :class:`dataclasses.FrozenInstanceError`); equality, hashing, ``repr``,
pickling and :func:`dataclasses.replace` are the dataclass's own.

The compiled engine (:mod:`rules.engine`) keeps it: mypyc compiles a class with a decorator
other than ``@dataclass`` as a plain Python class, whose ``__init__`` stays interpreted code
either way, and a native frozen dataclass would get the slow ``__init__`` this replaces
(measured: native frozen values made the compiled replay slower than the pure one). On a
native class (one with ``__mypyc_attrs__``) :func:`quick_init` returns the class unchanged.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give a frozen, slotted dataclass an ``__init__`` that is quicker to call.

    Apply it above ``@dataclass(frozen=True, slots=True)``; a native class compiled by mypyc
    is returned unchanged. A class this does not fit
    (not frozen, no slots, a ``__post_init__``, a field with a default factory or left
    out of ``__init__``) raises :class:`TypeError` when it is defined.
    """
    if "__mypyc_attrs__" in cls.__dict__:
        return cls
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__qualname__} is not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__qualname__} has a __post_init__")
    names: list[str] = []
    positional: list[str] = []
    keyword: list[str] = []
    namespace: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__qualname__}.{f.name}: only plain fields are supported")
        names.append(f.name)
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        spec = f.name
        if f.default is not dataclasses.MISSING:
            namespace[f"_default_{f.name}"] = f.default
            spec = f"{f.name}=_default_{f.name}"
        (keyword if f.kw_only else positional).append(spec)
    params_text = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    body = "".join(f"    _set_{name}(self, {name})\n" for name in names) or "    pass\n"
    exec(f"def __init__({params_text}) -> None:\n{body}", namespace)
    init = namespace["__init__"]
    generated = cls.__init__
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(getattr(generated, "__annotations__", {}))
    init.__doc__ = getattr(generated, "__doc__", None)
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
