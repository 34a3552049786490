"""``zhuoji.rules.frozen.quick_init``: the same frozen dataclass, built by a quicker
``__init__``."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
from dataclasses import dataclass, field

import pytest

from zhuoji.rules.engine import is_compiled
from zhuoji.rules.frozen import quick_init


@quick_init
@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 2
    label: str | None = field(default=None, compare=False)
    tag: str = field(default="t", kw_only=True)


@dataclass(frozen=True, slots=True)
class Reference:  # Point as the dataclass alone writes it
    x: int
    y: int = 2
    label: str | None = field(default=None, compare=False)
    tag: str = field(default="t", kw_only=True)


def test_the_parameters_are_the_dataclass_ones() -> None:
    assert str(inspect.signature(Point)) == str(inspect.signature(Reference))
    assert Point(1) == Point(1, 2, None, tag="t")
    assert Point(1, y=5, tag="u") == Point(x=1, y=5, tag="u")
    with pytest.raises(TypeError):
        Point(1, 2, None, "u")  # type: ignore[misc]  # tag is keyword-only
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_the_value_is_as_frozen_and_compares_as_before() -> None:
    p = Point(1, 3, "a")
    assert (p.x, p.y, p.label, p.tag) == (1, 3, "a", "t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    assert p == Point(1, 3, "b")  # label does not compare
    assert hash(p) == hash(Point(1, 3, "b"))
    assert repr(p) == "Point(x=1, y=3, label='a', tag='t')"
    assert not hasattr(p, "__dict__")


def test_replace_pickle_and_copy_give_equal_values() -> None:
    p = Point(1, 3, "a", tag="u")
    assert dataclasses.replace(p, y=4) == Point(1, 4, "a", tag="u")
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p and copy.copy(p) == p


def test_classes_it_does_not_fit_are_refused_when_defined() -> None:
    with pytest.raises(TypeError, match="frozen, slotted"):

        @quick_init
        @dataclass(slots=True)
        class NotFrozen:
            x: int

    with pytest.raises(TypeError, match="frozen, slotted"):

        @quick_init
        @dataclass(frozen=True)
        class NoSlots:
            x: int

    with pytest.raises(TypeError, match="__post_init__"):

        @quick_init
        @dataclass(frozen=True, slots=True)
        class PostInit:
            x: int

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError, match="plain fields"):

        @quick_init
        @dataclass(frozen=True, slots=True)
        class Factory:
            x: list[int] = field(default_factory=list)

    with pytest.raises(TypeError, match="plain fields"):

        @quick_init
        @dataclass(frozen=True, slots=True)
        class NotInInit:
            x: int = field(default=0, init=False)


@pytest.mark.parametrize(
    "params",
    ["self, y: int, x: int", "self, x: int, y: int = 0", "self, x: int, *, y: int",
     "self, x: int"],
)
def test_an_own_init_must_take_the_fields_in_order(params: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"def __init__({params}) -> None:\n    pass\n", namespace)

    @dataclass(frozen=True, slots=True)
    class Own:
        x: int
        y: int

    with pytest.raises(TypeError, match="does not take the fields in order"):
        Own.__init__ = namespace["__init__"]  # type: ignore[method-assign]
        quick_init(Own)


def test_an_own_init_that_fits_is_replaced() -> None:
    @dataclass(frozen=True, slots=True)
    class Own:
        x: int
        y: int = 2
        z: str = field(default="z", kw_only=True)

        def __init__(self, x: int, y: int = 2, *, z: str = "z") -> None:
            self.x = x  # type: ignore[misc]  (refused: a frozen instance)
            self.y = y  # type: ignore[misc]
            self.z = z  # type: ignore[misc]

    with pytest.raises(dataclasses.FrozenInstanceError):
        Own(1)
    quick_init(Own)
    assert Own(1, z="q") == Own(x=1, y=2, z="q")


_MODULES = [
    "zhuoji.rules.audit",
    "zhuoji.rules.events",
    "zhuoji.rules.facts",
    "zhuoji.rules.melds",
    "zhuoji.rules.families.guizhou.patterns",
    "zhuoji.rules.replay",
    "zhuoji.rules.families.guizhou.settlement",
    "zhuoji.rules.violations",
]


def _engine_values() -> list[type]:
    found = []
    for name in _MODULES:
        for obj in vars(importlib.import_module(name)).values():
            if isinstance(obj, type) and obj.__module__ == name and dataclasses.is_dataclass(obj):
                found.append(obj)
    return found


@pytest.mark.parametrize("cls", _engine_values(), ids=lambda c: c.__qualname__)
def test_every_engine_value_takes_its_fields_in_order(cls: type) -> None:
    if is_compiled():
        # a native class with its own compiled __init__; its parameters are checked
        # against the fields when the pure engine defines it (quick_init), here by use
        assert "__mypyc_attrs__" in cls.__dict__, "not a native class in the compiled engine"
        assert "__create_fn__" not in cls.__init__.__qualname__
        return
    assert cls.__init__.__code__.co_filename == "<string>", "not built by quick_init"
    fields = dataclasses.fields(cls)
    params = list(inspect.signature(cls).parameters.values())
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        default = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        assert p.default == default
        keyword_only = p.kind is inspect.Parameter.KEYWORD_ONLY
        assert keyword_only == bool(f.kw_only)
