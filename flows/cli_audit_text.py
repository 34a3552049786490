"""The human view of ``zhuoji audit``: one hand as a referee reads it (no escaping here:
``zhuoji audit`` passes every line through :func:`flows.cli_text.safe`)."""

from __future__ import annotations

from collections.abc import Sequence

from flows.audit import GameAudit
from rules.audit import HandAudit
from rules.facts import DiscardFact, Outcome, SeatFacts
from rules.families.guizhou.patterns import Pattern
from rules.families.guizhou.settlement import (
    Reason,
    Settlement,
    format_amount,
    generate_item_differences,
    with_names,
)
from rules.melds import Meld
from rules.replay import HandReplay
from rules.tiles import format_tiles

_MELD_TEXT = {
    "pong": "pong",
    "exposed_kong": "exposed kong 点豆",
    "added_kong": "added kong 转弯豆",
    "concealed_kong": "concealed kong 闷豆",
}


def _seat(seat: int | None, names: Sequence[str]) -> str:
    if seat is None:
        return "-"
    if seat < len(names) and names[seat]:
        return f"seat {seat} ({names[seat]})"
    return f"seat {seat}"


def format_outcome(replay: HandReplay, names: Sequence[str]) -> str:
    """One line: who won how, a draw, or where the replay stopped."""
    if replay.outcome is Outcome.INCOMPLETE:
        fatal = replay.fatal
        at = "" if fatal is None or fatal.event_index is None else f" at event {fatal.event_index}"
        code = "" if fatal is None else f" ({fatal.code.value})"
        return f"incomplete: the replay stopped{at}{code}; the hand is not settled"
    if replay.outcome is Outcome.EXHAUSTIVE_DRAW:
        return "exhaustive draw 黄庄"
    parts = []
    for win in replay.winners:
        if win.self_drawn:
            how = "by self-draw"
        elif win.robbed_kong:
            how = f"robbing {_seat(win.from_seat, names)}'s kong"
        else:
            how = f"on {_seat(win.from_seat, names)}'s discard"
        parts.append(f"{_seat(win.seat, names)} won {how} on {win.tile}")
    return "; ".join(parts)


def format_winners(hand: HandAudit, names: Sequence[str]) -> list[str]:
    settlement = hand.settlement
    values = {} if settlement is None else {w.seat: w for w in settlement.wins}
    out = []
    for win in hand.replay.winners:
        pats = ", ".join(f"{p} {Pattern(p).chinese}" for p in win.patterns)
        line = f"  winner {_seat(win.seat, names)}: {pats}"
        value = values.get(win.seat)
        if value is not None:
            who = ", ".join(str(p) for p in value.payers)
            if value.penalty:
                line += f"; 包牌: pays {value.value} to each of seats {who}"
            else:
                line += f"; scored {' + '.join(value.patterns)}: {value.value} from seat(s) {who}"
        out.append(line)
    return out


def format_ledger(settlement: Settlement) -> list[str]:
    """The ledger grouped by reason, in reason order."""
    out = []
    for reason in Reason:
        items = [i for i in settlement.items if i.reason is reason]
        if not items:
            continue
        total = sum(i.amount for i in items)
        out.append(f"  {reason.value} {reason.chinese}: {total}")
        for i in items:
            out.append(f"    seat {i.payer} -> seat {i.payee}  {i.amount:>4}  {i.detail}")
    if not out:
        out.append("  (no transfers)")
    return out


def format_deltas(hand: HandAudit, names: Sequence[str]) -> list[str]:
    settlement = hand.settlement
    recorded = hand.record.result
    n = hand.record.n_players
    width = max([len(_seat(s, names)) for s in range(n)] + [4])
    out = [f"  {'seat':<{width}}  recomputed  recorded"]
    for s in range(n):
        ours = "-" if settlement is None else format_amount(settlement.deltas[s])
        if recorded is None:
            theirs = "-"
        elif s < len(recorded.deltas):
            theirs = format_amount(recorded.deltas[s])
        else:
            theirs = "missing"
        mark = "" if ours == theirs or "-" in (ours, theirs) else "   <- differs"
        out.append(f"  {_seat(s, names):<{width}}  {ours:>10}  {theirs:>8}{mark}")
    if settlement is not None and recorded is not None:
        dealer = f"  next dealer: recomputed seat {settlement.next_dealer}"
        if recorded.next_dealer is not None:
            dealer += f", recorded seat {recorded.next_dealer}"
            if recorded.next_dealer != settlement.next_dealer:
                dealer += "   <- differs"
        out.append(dealer)
        for (payer, payee, reason), a, b in generate_item_differences(settlement, recorded):
            out.append(f"  item differs: seat {payer} -> seat {payee} {reason}: "
                       f"recomputed {'-' if a is None else a}, recorded {'-' if b is None else b}")
    elif settlement is not None:
        out.append(f"  next dealer: seat {settlement.next_dealer} (no recorded result)")
    return out


def _because(settlement: Settlement, reason: str, payer: int, payee: int) -> list[str]:
    """Explanation lines about ``reason``: those naming its Chinese term (or, for the
    hand and plain chickens, the win and the chicken lines), the payee's first."""
    if reason == Reason.HAND.value:
        lines = [line for line in settlement.explanation if " won " in line]
    elif reason == Reason.CHICKEN.value:
        lines = [line for line in settlement.explanation if "chickens" in line]
    elif reason in _REASONS:
        term = Reason(reason).chinese
        lines = [line for line in settlement.explanation if term in line]
    else:
        return []
    return sorted(lines, key=lambda line: f"seat {payee}" not in line)[:3]


_REASONS = frozenset(r.value for r in Reason)


def format_verdict(hand: HandAudit, names: Sequence[str]) -> list[str]:
    """Each ledger item the record has wrong, with the lines of the explanation that say
    why (what a referee reads out)."""
    settlement, recorded = hand.settlement, hand.record.result
    if settlement is None or recorded is None:
        return []
    out: list[str] = []
    for (payer, payee, reason), ours, theirs in generate_item_differences(settlement, recorded):
        name = f"{reason} {Reason(reason).chinese}" if reason in _REASONS else reason
        head = f"  {_seat(payer, names)} -> {_seat(payee, names)} {name}: "
        if theirs is None:
            head += f"the rules give {ours}, the record has nothing"
        elif ours is None:
            head += f"the record has {theirs}, the rules give nothing"
        else:
            head += f"the record has {theirs}, the rules give {ours}"
        out.append(head)
        out.extend("      because " + line for line in
                   with_names(_because(settlement, reason, payer, payee), names))
    if not out and recorded.deltas != settlement.deltas:
        if recorded.items is None:
            out.append("  the recorded deltas differ (the record is not itemised): see findings")
        else:
            out.append("  the recorded deltas differ, and its items, which are right, do not "
                       "add up to them: see findings")
    return out


def format_findings(hand: HandAudit) -> list[str]:
    if not hand.findings:
        return ["  none"]
    out = []
    for v in hand.findings:
        where = "-" if v.event_index is None else str(v.event_index)
        seat = "-" if v.seat is None else str(v.seat)
        out.append(f"  {v.code.value} (event {where}, seat {seat}): {v.message}")
    return out


def _meld_text(meld: Meld) -> str:
    src = "" if meld.from_seat is None else f" from seat {meld.from_seat}"
    late = " 憨包豆" if meld.delayed else ""
    return f"{_MELD_TEXT[meld.kind.value]} {meld.tile}{src}{late}"


def _discard_text(d: DiscardFact) -> str:
    if d.claimed_by is None:
        return str(d.tile)
    mark = {"pong": "P", "exposed_kong": "E", "win": "H"}[d.claim.value if d.claim else "pong"]
    return f"{d.tile}>{mark}{d.claimed_by}"


def format_tiles_at_end(replay: HandReplay, names: Sequence[str]) -> list[str]:
    """Each seat's tiles as the hand ended: concealed, melds, discards, readiness."""
    out = []
    wins = {w.seat: w for w in replay.winners}
    for seat in replay.seats:
        out.extend(_seat_lines(seat, wins.get(seat.seat) is not None, replay, names))
    return out


def _seat_lines(seat: SeatFacts, won: bool, replay: HandReplay,
                names: Sequence[str]) -> list[str]:
    concealed = format_tiles(seat.concealed) or "nothing"
    win = next((w for w in replay.winners if w.seat == seat.seat), None)
    if win is not None and not win.self_drawn:
        concealed += f" + {win.tile} (won)"
    state = []
    if won:
        state.append("won")
    elif seat.ready:
        state.append(f"ready on {format_tiles(seat.waits)}")
    else:
        state.append("not ready")
    if seat.declared_ready_at is not None:
        kind = "硬报" if seat.hard_ready else "软听"
        state.append(f"declared ready at event {seat.declared_ready_at} ({kind})")
    lines = [f"  {_seat(seat.seat, names)}: {concealed}  [{'; '.join(state)}]"]
    if seat.melds:
        lines.append("      melds: " + ", ".join(_meld_text(m) for m in seat.melds))
    if seat.discards:
        lines.append("      discards: " + " ".join(_discard_text(d) for d in seat.discards))
    return lines


def format_chickens(settlement: Settlement, names: Sequence[str]) -> list[str]:
    if not settlement.chickens:
        return ["  none scored"]
    return [
        f"  {_seat(c.seat, names)}: {c.count} x {c.tile} {c.kind.value}"
        for c in settlement.chickens
    ]


def format_hand(audit: GameAudit, hand: HandAudit, *, full: bool) -> list[str]:
    """The human view of one hand (``full``: the ``--hand N`` view)."""
    names = audit.names
    record, replay, settlement = hand.record, hand.replay, hand.settlement
    assert audit.ruleset is not None
    head = (f"== {audit.game.game_id} hand {record.hand_no} | ruleset {audit.ruleset.name} | "
            f"dealer {_seat(record.dealer, names)}")
    if record.dealer_streak:
        head += f", 连庄 {record.dealer_streak}"
    if record.base_stake != 1:
        head += f" | base stake {record.base_stake}"
    lines = [head + f" | {audit.path}", f"outcome: {format_outcome(replay, names)}"]
    lines.extend(format_winners(hand, names))
    if full and replay.seats:
        lines.append("tiles as the hand ended:")
        lines.extend(format_tiles_at_end(replay, names))
        flip = "none" if replay.flip is None else str(replay.flip)
        lines.append(f"flip: {flip}")
    if settlement is not None:
        if full:
            lines.append("chickens:")
            lines.extend(format_chickens(settlement, names))
        lines.append("ledger (recomputed):")
        lines.extend(format_ledger(settlement))
    lines.append("deltas:")
    lines.extend(format_deltas(hand, names))
    lines.append("findings:")
    lines.extend(format_findings(hand))
    if full and settlement is not None:
        lines.append("explanation:")
        lines.extend("  " + line for line in with_names(settlement.explanation, names))
        verdict = format_verdict(hand, names)
        if verdict:
            lines.append("what the record has wrong:")
            lines.extend(verdict)
    return lines
