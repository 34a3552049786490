"""A game's ruleset, resolved once: the log's preset name and ``rule_overrides`` to the
ruleset, its family, the tiles its logs may hold and its fingerprint.

Every reader of logs resolves here, and each resolution is cached: ``zhuoji validate``,
``zhuoji audit``, the ingest worker, the replay panel of a hand page, the dashboard's
hand pages and the readers' ``tiles`` (:func:`ruleset_tiles`).

* :func:`resolve` takes the overrides as the log gives them; its cache key is built from
  them as they are (each value with its type, so ``true`` is not ``1`` and ``-0.0`` is
  not ``0.0``), with no JSON text on the way.
* :func:`resolve_stored` takes them as the warehouse stores them: canonical JSON text
  (:func:`stored_overrides`, keys sorted). The ingest resolves a game this way, from the
  very text it stores, so that a warehouse's ruleset and its fingerprint are those of the
  stored text (a value JSON cannot hold, ``1e400``, is stored ``null``: the stored text is
  what the ingest audits under); ``validate`` does too, to report what the ingest would.

A ruleset that does not resolve (an unknown preset, a bad override) is a value too: its
``error`` is the engine's one-line message, as every command prints it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from zhuoji.rules.families import Family, family_of, replayable
from zhuoji.rules.messages import Message
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.settings import RulesetBase, RulesetError
from zhuoji.rules.tiles import TILE_TEXT, Tile, TileSet
from zhuoji.rules.version import ruleset_fingerprint

__all__ = [
    "ResolvedRuleset",
    "resolve",
    "resolve_stored",
    "ruleset_tiles",
    "stored_overrides",
    "tile_texts",
]


def tile_texts(tile_set: TileSet) -> frozenset[str]:
    """The canonical texts of a tile set's kinds, and the wildcard ``W`` (a setting of the
    ruleset, which the replay checks)."""
    return frozenset([TILE_TEXT[t] for t in tile_set.kinds] + [TILE_TEXT[Tile.W]])


_SUITED = tile_texts(TileSet.SUITED)


@dataclass(frozen=True, slots=True)
class ResolvedRuleset:
    """A preset with a log's overrides, resolved; or why it does not resolve."""

    preset: str
    resolved: RulesetBase | None
    """The preset with the overrides applied (None when they do not resolve)."""
    error: str | None
    """Why the preset and overrides do not resolve (an unknown preset, a bad override)."""
    replay_error: str | None
    """Why the hands cannot be replayed under it: :attr:`error`, or a family without table
    rules. None for a ruleset the audit can use."""
    family: Family | None
    fingerprint: str | None
    """:func:`zhuoji.rules.version.ruleset_fingerprint` of a ruleset the audit can use."""
    tiles: frozenset[str]
    """The tiles a log of its family may hold (:func:`tile_texts`; the 108 tiles of the
    suited set when the ruleset does not resolve)."""

    @property
    def ruleset(self) -> RulesetBase:
        """The ruleset to replay and settle hands under; raises :class:`RulesetError` with
        :attr:`replay_error` when there is none."""
        if self.replay_error is not None or self.resolved is None:
            raise RulesetError(self.replay_error or "")
        return self.resolved


def _said(exc: ValueError) -> str:
    """What ``exc`` says: the :class:`Message` the engine raised it with (shown in the
    invocation's language), else its text."""
    said = exc.args[0] if len(exc.args) == 1 else None
    return said if isinstance(said, Message) else str(exc)


def _resolution(preset: str, overrides: Mapping[str, Any] | None) -> ResolvedRuleset:
    try:
        resolved = resolve_ruleset(preset, overrides)
    except ValueError as exc:
        return ResolvedRuleset(preset, None, _said(exc), _said(exc), None, None, _SUITED)
    try:
        replayable(resolved)
    except ValueError as exc:
        try:
            family: Family | None = family_of(resolved)
        except ValueError:
            family = None
        tiles = _SUITED if family is None else tile_texts(family.tile_set)
        return ResolvedRuleset(preset, resolved, None, _said(exc), family, None, tiles)
    family = family_of(resolved)
    return ResolvedRuleset(preset, resolved, None, None, family, ruleset_fingerprint(resolved),
                           tile_texts(family.tile_set))


def _frozen(value: Any) -> Hashable:
    """``value`` (a JSON value as a log's reader gives it) as a hashable key that two
    values share only when they are the same: the same types (``True`` is not ``1``),
    the same floats bit for bit (``-0.0`` is not ``0.0``), the same order."""
    if isinstance(value, dict):
        return (dict, tuple([(k, _frozen(v)) for k, v in value.items()]))
    if isinstance(value, list | tuple):
        return (list, tuple([_frozen(v) for v in value]))
    if isinstance(value, float):
        return (float, value.hex())
    return (type(value), value)


_CACHE_LIMIT = 256
_resolved: dict[tuple[str, Hashable], ResolvedRuleset] = {}


def resolve(preset: str, overrides: Mapping[str, Any] | None = None) -> ResolvedRuleset:
    """The ruleset of a log's game: its preset name and its ``rule_overrides`` as the log
    gives them (cached on the preset and the overrides' values)."""
    key = (preset, None if not overrides else _frozen(overrides))
    found = _resolved.get(key)
    if found is None:
        found = _resolution(preset, overrides)
        if len(_resolved) >= _CACHE_LIMIT:
            del _resolved[next(iter(_resolved))]
        _resolved[key] = found
    return found


def stored_overrides(overrides: Mapping[str, Any] | None) -> str | None:
    """A log's ``rule_overrides`` as the ``games`` table stores them: JSON text with the
    keys sorted, no whitespace (None when the log has none)."""
    if overrides is None:
        return None
    return orjson.dumps(overrides, option=orjson.OPT_SORT_KEYS).decode()


@lru_cache(maxsize=_CACHE_LIMIT)
def resolve_stored(preset: str, overrides: str | None) -> ResolvedRuleset:
    """The ruleset of a game as the warehouse stores it: the preset name and the overrides
    as their stored JSON text (:func:`stored_overrides`, or None), cached on that text."""
    return resolve(preset, None if overrides is None else orjson.loads(overrides) or None)


def ruleset_tiles(ruleset: str) -> frozenset[str]:
    """The tiles a log of the preset ``ruleset`` may hold, for the readers' ``tiles``
    (:mod:`zhuoji.parsers.read`: the parsers know no ruleset): those of its family's tile
    set; the 108-tile set for a name no preset has (the replay then refuses the ruleset
    itself)."""
    return resolve(ruleset).tiles
