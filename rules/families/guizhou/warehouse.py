"""The family's own warehouse columns: the chickens each settlement paid, by kind
(:attr:`zhuoji.rules.families.Family.chicken_counts`)."""

from __future__ import annotations

from collections.abc import Iterator

from zhuoji.rules.families.guizhou.settlement import Settlement


def chicken_counts(settlement: Settlement) -> Iterator[tuple[int, str, int]]:
    """``(seat, kind, count)`` of each chicken count the settlement paid a seat for; the
    kind is the :class:`~zhuoji.rules.families.guizhou.settlement.ChickenKind` value, which
    names the warehouse's column (``chickens_<kind>``)."""
    for c in settlement.chickens:
        yield c.seat, c.kind, c.count
