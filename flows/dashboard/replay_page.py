"""The step-by-step replay on a hand page: the hand read again from its log file,
replayed by :func:`zhuoji.rules.snapshot.replay_snapshots`, and given to the page as JSON.
(A page written by ``zhuoji audit --html`` takes the steps of its own audit instead:
:mod:`zhuoji.flows.dashboard.hand_report`.)

The warehouse does not hold a hand's events, so a hand page reads them from the file the
game was loaded from, and only when that file still has the content hash the warehouse
recorded: a page never shows a replay of other bytes than the ones audited. When the
file is gone or changed the page says so and shows the hand without its replay.

The page's script (``replay.js``) draws each step from this data; the tile faces are the
same HTML as the rest of the page (:func:`zhuoji.flows.dashboard.tiles.tile_html`), made here.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import orjson

from zhuoji.flows.audit.service import (
    AuditOptions,
    GameAudit,
    audit_read_game,
    generate_audits,
    hand_snapshots,
)
from zhuoji.flows.ingest.worker import INGEST_AUDIT
from zhuoji.flows.text.terminal import safe
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.fast import Game
from zhuoji.parsers.read import parse_encoding
from zhuoji.rules.audit import HandAudit
from zhuoji.rules.snapshot import HandSnapshots

__all__ = [
    "PAGE_AUDIT",
    "HandWhy",
    "ReplayData",
    "finding_step",
    "hand_replay",
    "replay_json",
    "script_json",
]

_READ_ONLY = AuditOptions(audit=False)
"""The games of a file, read (their rulesets resolved), not audited: a page replays one
hand of one of them."""

PAGE_AUDIT = replace(INGEST_AUDIT, explain=True)
"""How a hand's page audits its game: as the ingest audited it for the warehouse, with the
settlement's explanation (the page says why the hand is settled so and what its record
has wrong, as ``zhuoji audit --hand N`` does)."""


@dataclass(frozen=True, slots=True)
class HandWhy:
    """A hand's audit with its settlement's explanation, and its players' names (what the
    page's explanation and verdict are made of)."""

    audit: HandAudit
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReplayData:
    """A hand's replay for its page, or why there is none (``snapshots`` is None); and
    its audit with the explanation, when the game could be audited (``why``)."""

    snapshots: HandSnapshots | None
    missing: str | None  # why the replay cannot be shown
    why: HandWhy | None = None


def hand_why(item: GameAudit, hand_no: int) -> HandWhy | None:
    """Hand ``hand_no`` of a game audited with explanations (:data:`PAGE_AUDIT`), or None
    when the game has no audit or no such hand."""
    audit = next((h for h in item.hands if h.record.hand_no == hand_no), None)
    return None if audit is None else HandWhy(audit, tuple(item.names))


@dataclass(slots=True)
class _File:
    """The games of one version of a log file, and those audited so far for a page."""

    path: str
    games: dict[str, Game]
    audited: dict[str, GameAudit] = field(default_factory=dict)

    def audit(self, game_id: str) -> GameAudit:
        found = self.audited.get(game_id)
        if found is None:
            found = self.audited[game_id] = audit_read_game(
                self.path, self.games[game_id], PAGE_AUDIT)
        return found


def _file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _games(path: str, sha256: str | None) -> tuple[_File | None, str | None]:
    """The games of a log file by id, when it still holds the bytes the warehouse loaded;
    else why not."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None, "the log file is no longer there"
    except OSError as exc:
        return None, f"the log file cannot be read again ({exc.strerror})"
    return _read_games(path, sha256, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4)
def _read_games(
    path: str, sha256: str | None, mtime_ns: int, size: int
) -> tuple[_File | None, str | None]:
    """:func:`_games` for one version of the file (its time and size are in the key: a
    long-lived process never reuses what an older version held). A few files are kept: a
    worker renders the pages of one game one after another (each game is audited once,
    when a page of it is made: :meth:`_File.audit`)."""
    try:
        if sha256 is not None and _file_sha256(path) != sha256:
            return None, "the log file changed since it was loaded"
        parse_encoding(path)  # a name no reader takes: ValueError, as reading it raises
        games = {g.game.game_id: g.game for g in generate_audits(path, _READ_ONLY)
                 if isinstance(g, GameAudit)}
    except FileNotFoundError:
        return None, "the log file is no longer there"
    except (OSError, MalformedLogError, ValueError) as exc:
        return None, f"the log file cannot be read again ({type(exc).__name__})"
    return _File(path, games), None


def hand_replay(path: str, sha256: str | None, game_id: str, hand_no: int) -> ReplayData:
    """The replay of one hand, read from ``path`` (checked against ``sha256``), with its
    game's audit (:data:`PAGE_AUDIT`)."""
    file, why = _games(path, sha256)
    if file is None:
        return ReplayData(None, why)
    game = file.games.get(game_id)
    snapshots = None if game is None else hand_snapshots(game, hand_no)
    if snapshots is None:
        return ReplayData(None, "the hand is not in its log file any more")
    return ReplayData(snapshots, None, hand_why(file.audit(game_id), hand_no))


def _seat_text(seat: Mapping[str, Any]) -> dict[str, Any]:
    """A seat of a snapshot, compact: tile lists as space-separated text, a claimed
    discard marked with a trailing ``*``; the family's marks on the seat as they are; the
    seat's declared suit (定缺) once it has one."""
    out = {
        "concealed": " ".join(seat["concealed"]),
        "melds": seat["melds"],
        "discards": " ".join(d["tile"] + ("*" if d["claimed"] else "") for d in seat["discards"]),
        "marks": seat["marks"],
    }
    if "declared_suit" in seat:
        out["declared_suit"] = seat["declared_suit"]
    return out


def _compact_steps(snapshots: HandSnapshots) -> list[dict[str, Any]]:
    """The steps for the page: a seat that did not change since the step before is
    ``null`` (the page's script carries the last one forward), so a page grows with the
    events, not with events times seats."""
    out = []
    previous: list[dict[str, Any] | None] = []
    for snap in snapshots.steps:
        seats = [_seat_text(seat) for seat in snap.table["seats"]]
        row = {k: v for k, v in snap.table.items() if k != "seats"}
        row["seats"] = [
            None if i < len(previous) and previous[i] == seat else seat
            for i, seat in enumerate(seats)
        ]
        out.append({"step": snap.step, "event": snap.event, **row})
        previous = list(seats)
    return out


def finding_step(event_index: int | None, last: int) -> int:
    """The step that shows a finding's event: the table just after it, or the last step
    (the event was not applied, or the finding is about the hand as a whole)."""
    return last if event_index is None else min(int(event_index) + 1, last)


def replay_json(
    snapshots: HandSnapshots,
    *,
    findings: Sequence[Mapping[str, Any]],
    tiles: Mapping[str, str],
    marked_tiles: Mapping[str, str],
    labels: Mapping[str, str],
    names: Sequence[str],
) -> str:
    """The page's replay data as JSON text safe inside a ``<script>`` element.

    ``findings`` are the page's findings (``event_index``, ``code``, ``seat``, ``item_no``):
    each is placed on the step that shows its event (the step after it, or the last step
    when the event was not applied); ``tiles`` and ``marked_tiles`` are the tile faces by
    tile text (plain, and with the gold edge of a tile the family marks:
    ``Family.hand_marks``); ``labels`` the words of the replay panel by key."""
    steps = snapshots.steps
    last = len(steps) - 1
    marks = []
    for f in findings:
        index = f.get("event_index")
        marks.append({
            "step": finding_step(index, last),
            "item": f.get("item_no"),
            "code": f.get("code"),
            "seat": f.get("seat"),
            "event": index,
        })
    data = {
        "steps": _compact_steps(snapshots),
        "stopped": snapshots.stopped_at,
        "fatal": None if snapshots.fatal is None else snapshots.fatal.code.value,
        "marks": marks,
        "tiles": dict(sorted(tiles.items())),
        "marked": dict(sorted(marked_tiles.items())),
        "labels": dict(labels),
        "names": [safe(name) for name in names],
    }
    return script_json(data)


# Nothing in the data may close the script element or start a comment in it.
_SCRIPT_SPECIAL = re.compile("[<>&]")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def script_json(data: Any) -> str:
    """``data`` as JSON text safe inside a ``<script>`` element of a page: no ``<``, ``>``,
    ``&`` and no character the pages escape (:func:`zhuoji.flows.text.terminal.safe`'s: the controls
    orjson leaves raw, DEL, C1, U+2028, U+2029, the bidirectional ones) appears raw. They
    are only ever inside a JSON string, where ``\\uXXXX`` means the same: JSON.parse gives
    the same values back."""
    text = orjson.dumps(data).decode()
    if safe(text) != text:
        text = "".join(f"\\u{ord(c):04x}" if safe(c) != c else c for c in text)
    return _SCRIPT_SPECIAL.sub(_json_escape, text)
