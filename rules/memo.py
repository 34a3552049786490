"""Bounded memo tables: one type, one overflow policy, one :func:`clear_all`.

The engine remembers what it computed about tile arrangements (a suit's decompositions,
its waits, interned melds, chicken counts ...) in :class:`Memo` tables. Results never
depend on what a table holds, only speed does; so every table has a bound, and the one
overflow policy is: **a table that is full is emptied before the new entry goes in** (with
the tables listed as its ``dependents``, whose entries refer to its own). Emptying is cheap,
keeps memory bounded whatever the input, and leaves the work of a long run deterministic
(no recency bookkeeping on the hot path).

``Memo.data`` is a plain dict that is never replaced (only emptied in place), so a hot
path may read it directly (``table.data.get(key)``, or a module global bound to it) and
call :meth:`Memo.put` on a miss. Structures that are not dicts (the tries of
:mod:`zhuoji.rules.hand` and :mod:`zhuoji.rules.table`) follow the same policy with their own bound
and
register how to empty them with :func:`on_clear_all`.

:func:`clear_all` empties every table and structure (benchmarks measure cold runs; tests
check that nothing depends on them). Values derived from a ruleset are not here: they hang
off the ruleset (:meth:`zhuoji.rules.settings.RulesetBase.derived`), computed once per ruleset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

__all__ = ["Memo", "clear_all", "memos", "on_clear_all"]

K = TypeVar("K")
V = TypeVar("V")


class Memo(Generic[K, V]):
    """A bounded memo table (see the module's overflow policy). ``register=False`` leaves
    it out of :func:`clear_all`: a table kept on an object (a ruleset's settlement plan)
    that goes when the object goes."""

    def __init__(
        self,
        name: str,
        limit: int,
        dependents: Sequence[Memo[Any, Any]] = (),
        register: bool = True,
    ) -> None:
        if limit < 1:
            raise ValueError(f"memo {name!r}: the limit must be at least 1")
        self.name = name
        self.limit = limit
        self.dependents: tuple[Memo[Any, Any], ...] = tuple(dependents)
        self.resets: list[Callable[[], None]] = []
        self.data: dict[K, V] = {}
        if register:  # not a table that lives and dies with one object (a ruleset's plan)
            _MEMOS.append(self)

    def get(self, key: K) -> V | None:
        return self.data.get(key)

    def put(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` (emptying the table first when it is full);
        returns ``value``."""
        data = self.data
        if len(data) >= self.limit:
            self.clear()
        data[key] = value
        return value

    def clear(self) -> None:
        """Empty the table, its dependents, and run its resets."""
        self.data.clear()
        for dependent in self.dependents:
            dependent.clear()
        for reset in self.resets:
            reset()

    def on_clear(self, reset: Callable[[], None]) -> None:
        """Run ``reset`` whenever this table is emptied (state kept beside the table)."""
        self.resets.append(reset)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"Memo({self.name!r}, {len(self.data)}/{self.limit})"


_MEMOS: list[Memo[Any, Any]] = []
_RESETS: list[Callable[[], None]] = []


def on_clear_all(reset: Callable[[], None]) -> None:
    """Run ``reset`` on :func:`clear_all` (a memo structure that is not a :class:`Memo`)."""
    _RESETS.append(reset)


def memos() -> tuple[Memo[Any, Any], ...]:
    """Every memo table made so far, in the order they were made."""
    return tuple(_MEMOS)


def clear_all() -> None:
    """Empty every memo table and structure of the engine."""
    for memo in _MEMOS:
        memo.clear()
    for reset in _RESETS:
        reset()
