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

The compiled engine (:mod:`zhuoji.rules.engine`) needs these values as native classes (typed
attribute access in compiled code), so :func:`quick_init` is called after the class body
(``quick_init(Cls)``), not as a decorator: mypyc compiles a class with any decorator but
``@dataclass`` as a plain Python class. A native frozen dataclass would get the
``__init__`` the dataclass writes, interpreted and slow (measured: the compiled replay ran
slower than the pure one), so each value class also writes its own ``__init__``, plain
stores (``self.seat = seat``): compiled, those are native stores that the frozen
``__setattr__`` does not see, about three times quicker than the pure ``__init__``;
interpreted, the frozen ``__setattr__`` would refuse them, and :func:`quick_init` replaces
that ``__init__`` after checking that it takes exactly the fields, in order, with their
defaults. On a native class (``__mypyc_attrs__``) :func:`quick_init` does nothing.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give a frozen, slotted dataclass an ``__init__`` that is quicker to call.

    Call it on the class after its definition; a native class compiled by mypyc is returned
    unchanged. An ``__init__`` the class writes itself must take the fields in order, with
    their defaults and keyword-only marks (else :class:`TypeError`). A class this does not fit
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
    if "__create_fn__" not in generated.__qualname__ and _params(generated) != _params(init):
        raise TypeError(
            f"{cls.__qualname__}.__init__ does not take the fields in order: "
            f"{inspect.signature(generated)} against {inspect.signature(init)}"
        )
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(getattr(generated, "__annotations__", {}))
    init.__doc__ = getattr(generated, "__doc__", None)
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def _params(fn: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
    """``fn``'s parameters as (name, kind, default), annotations left out."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
