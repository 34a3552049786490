"""The human view of ``zhuoji audit``: one hand as a referee reads it, in English or in
Chinese (``lang``; the Chinese from the glossary, :mod:`zhuoji.rules.glossary`, in the words of
the hand's family: ``family``, its ruleset's), no escaping here: ``zhuoji audit`` passes
every line through :func:`zhuoji.flows.text.terminal.safe`."""

from __future__ import annotations

from collections.abc import Sequence

from zhuoji.flows.audit.files import GameAudit
from zhuoji.flows.text.verdict import explanation_lines, hand_verdict
from zhuoji.flows.text.verdict import name_zh as _name_zh
from zhuoji.flows.text.verdict import seat_text as _seat
from zhuoji.rules.audit import HandAudit
from zhuoji.rules.facts import DiscardFact, Outcome, SeatFacts
from zhuoji.rules.families import family_of
from zhuoji.rules.glossary import Lang, expand, render, text, tiles_zh, zh
from zhuoji.rules.ledger import Ledger, format_amount, generate_item_differences
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.referee import TEXT_SETTLEMENT, TEXT_TABLE, TEXT_TILES, HandText
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.tiles import format_tiles

_MELD_TEXT = {
    "pong": "pong",
    "exposed_kong": "exposed kong <kong.exposed>",
    "added_kong": "added kong <kong.added>",
    "concealed_kong": "concealed kong <kong.concealed>",
    "chow": "chow",
}
"""A meld kind in English, the kong's Chinese beside it (expanded in the family's words)."""


def _t(english: str, lang: Lang, family: str | None = None, /, **fields: object) -> str:
    return text(english, lang, family, **fields)


def _term(section: str, key: str, lang: Lang, family: str | None = None) -> str:
    """``full_flush 清一色`` in English (the name and its Chinese), ``清一色`` in Chinese."""
    chinese = zh(section, key, family)
    return chinese if lang == "zh" else f"{key} {chinese}"


def _tiles(tiles: str, lang: Lang, family: str | None = None) -> str:
    return tiles_zh(tiles, family) if lang == "zh" and tiles else tiles


def _tile(tile: object, lang: Lang) -> str:
    from zhuoji.rules.glossary import tile_zh

    return tile_zh(str(tile)) if lang == "zh" else str(tile)


def format_outcome(replay: HandReplay, names: Sequence[str], lang: Lang = "en", *,
                   family: str | None = None) -> str:
    """One line: who won how, a draw, or where the replay stopped."""
    if replay.outcome is Outcome.INCOMPLETE:
        fatal = replay.fatal
        at = ("" if fatal is None or fatal.event_index is None
              else _t(" at event {index}", lang, index=fatal.event_index))
        code = "" if fatal is None else f" ({fatal.code.value})"
        return _t("incomplete: the replay stopped{at}{code}; the hand is not settled", lang,
                  family, at=at, code=code)
    if replay.outcome is Outcome.EXHAUSTIVE_DRAW:
        return _t("exhaustive draw 黄庄", lang, family)
    parts = []
    for win in replay.winners:
        if win.self_drawn:
            how = _t("by self-draw", lang, family)
        elif win.robbed_kong:
            how = _t("robbing {seat}'s kong", lang, family,
                     seat=_seat(win.from_seat, names, lang))
        else:
            how = _t("on {seat}'s discard", lang, family, seat=_seat(win.from_seat, names, lang))
        parts.append(_t("{seat} won {how} on {tile}", lang, family,
                        seat=_seat(win.seat, names, lang), how=how, tile=_tile(win.tile, lang)))
    return ("；" if lang == "zh" else "; ").join(parts)


def format_winners(hand: HandAudit, names: Sequence[str], lang: Lang = "en", *,
                   family: str | None = None) -> list[str]:
    settlement = hand.settlement
    values = {} if settlement is None else {w.seat: w for w in settlement.wins}
    out = []
    comma = "、" if lang == "zh" else ", "
    for win in hand.replay.winners:
        pats = comma.join(_term("pattern", str(p), lang, family) for p in win.patterns)
        line = _t("  winner {seat}: {patterns}", lang, family,
                  seat=_seat(win.seat, names, lang), patterns=pats)
        value = values.get(win.seat)
        if value is not None:
            who = comma.join(str(p) for p in value.payers)
            if value.penalty:
                line += _t("; 包牌: pays {value} to each of seats {who}", lang, family,
                           value=value.value, who=who)
            else:
                scored = " + ".join(_name_zh(p, family) if lang == "zh" else p
                                    for p in value.patterns)
                line += _t("; scored {patterns}: {value} from seat(s) {who}", lang, family,
                           patterns=scored, value=value.value, who=who)
        out.append(line)
    return out


def format_ledger(settlement: Ledger, lang: Lang = "en", *,
                  family: str | None = None) -> list[str]:
    """The ledger grouped by reason, in the family's reason order."""
    out = []
    for reason in settlement.reasons:
        items = [i for i in settlement.items if i.reason == reason]
        if not items:
            continue
        total = sum(i.amount for i in items)
        out.append(f"  {_term('reason', reason, lang, family)}"
                   f"{'：' if lang == 'zh' else ': '}{total}")
        for i in items:
            out.append(_t("    seat {payer} -> seat {payee}  {amount}  {detail}", lang,
                          family, payer=i.payer, payee=i.payee, amount=f"{i.amount:>4}",
                          detail=render(i.detail, lang, family)))
    if not out:
        out.append(_t("  (no transfers)", lang, family))
    return out


def _width(text_: str) -> int:
    """Columns ``text_`` takes in a terminal (a CJK character takes two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text_)


def _ljust(text_: str, width: int) -> str:
    return text_ + " " * max(0, width - _width(text_))


def _rjust(text_: str, width: int) -> str:
    return " " * max(0, width - _width(text_)) + text_


def format_deltas(hand: HandAudit, names: Sequence[str], lang: Lang = "en", *,
                  family: str | None = None) -> list[str]:
    settlement = hand.settlement
    recorded = hand.record.result
    n = hand.record.n_players
    width = max([_width(_seat(s, names, lang)) for s in range(n)] + [4])
    out = [f"  {_ljust(_t('seat', lang, family), width)}  "
           f"{_rjust(_t('recomputed', lang, family), 10)}  "
           f"{_rjust(_t('recorded', lang, family), 8)}"]
    differs = _t("   <- differs", lang, family)
    for s in range(n):
        ours = "-" if settlement is None else format_amount(settlement.deltas[s])
        if recorded is None:
            theirs = "-"
        elif s < len(recorded.deltas):
            theirs = format_amount(recorded.deltas[s])
        else:
            theirs = _t("missing", lang, family)
        mark = "" if ours == theirs or "-" in (ours, theirs) else differs
        out.append(f"  {_ljust(_seat(s, names, lang), width)}  {_rjust(ours, 10)}  "
                   f"{_rjust(theirs, 8)}{mark}")
    if settlement is not None and recorded is not None:
        dealer = _t("  next dealer: recomputed seat {ours}", lang, family,
                    ours=settlement.next_dealer)
        if recorded.next_dealer is not None:
            dealer += _t(", recorded seat {theirs}", lang, family, theirs=recorded.next_dealer)
            if recorded.next_dealer != settlement.next_dealer:
                dealer += differs
        out.append(dealer)
        for (payer, payee, reason), a, b in generate_item_differences(settlement, recorded):
            name = _name_zh(reason, family) if lang == "zh" else reason
            out.append(_t("  item differs: seat {payer} -> seat {payee} {reason}: "
                          "recomputed {ours}, recorded {theirs}", lang, family, payer=payer,
                          payee=payee, reason=name, ours="-" if a is None else a,
                          theirs="-" if b is None else b))
    elif settlement is not None:
        out.append(_t("  next dealer: seat {seat} (no recorded result)", lang, family,
                      seat=settlement.next_dealer))
    return out


def format_verdict(hand: HandAudit, names: Sequence[str], lang: Lang = "en", *,
                   family: str | None = None) -> list[str]:
    """Each ledger item the record has wrong, with the lines of the explanation that say
    why (what a referee reads out: :func:`zhuoji.flows.text.verdict.hand_verdict`)."""
    return hand_verdict(hand, names, lang, family).lines()


def format_findings(hand: HandAudit, lang: Lang = "en", *,
                    family: str | None = None) -> list[str]:
    if not hand.findings:
        return [_t("  none", lang, family)]
    out = []
    for v in hand.findings:
        where = "-" if v.event_index is None else str(v.event_index)
        seat = "-" if v.seat is None else str(v.seat)
        code = (v.code.value if lang == "en"
                else f"{v.code.value} {zh('code', v.code.value, family)}")
        out.append(_t("  {code} (event {where}, seat {seat}): {message}", lang, family,
                      code=code, where=where, seat=seat,
                      message=render(v.message, lang, family)))
    return out


def _meld_text(meld: Meld, lang: Lang = "en", family: str | None = None) -> str:
    src = ("" if meld.from_seat is None
           else _t(" from seat {seat}", lang, family, seat=meld.from_seat))
    late = f" {zh('meld', 'late', family)}" if meld.delayed else ""
    # a chow by its three tiles (3m4m5m: 345m), any other meld by its tile
    shown = (_tiles(format_tiles(meld.tiles), lang, family) if meld.kind is MeldKind.CHOW
             else _tile(meld.tile, lang))
    if lang == "zh":
        return f"{zh('meld', meld.kind.value, family)} {shown}{src}{late}"
    return f"{expand(_MELD_TEXT[meld.kind.value], family)} {shown}{src}{late}"


def _discard_text(d: DiscardFact, lang: Lang = "en", family: str | None = None) -> str:
    if d.claimed_by is None:
        return _tile(d.tile, lang)
    claim = d.claim.value if d.claim else "pong"
    if lang == "zh":
        mark = {"pong": zh("meld", "pong", family), "exposed_kong": zh("kong", "kong", family),
                "chow": zh("meld", "chow", family)}.get(claim) or zh("label", "winner", family)
    else:
        mark = {"pong": "P", "exposed_kong": "E", "win": "H", "chow": "C"}[claim]
    return f"{_tile(d.tile, lang)}>{mark}{d.claimed_by}"


def format_tiles_at_end(replay: HandReplay, names: Sequence[str],
                        lang: Lang = "en", *, family: str | None = None) -> list[str]:
    """Each seat's tiles as the hand ended: concealed, melds, discards, readiness."""
    out = []
    wins = {w.seat: w for w in replay.winners}
    for seat in replay.seats:
        out.extend(_seat_lines(seat, wins.get(seat.seat) is not None, replay, names, lang,
                               family))
    return out


def _seat_lines(seat: SeatFacts, won: bool, replay: HandReplay,
                names: Sequence[str], lang: Lang = "en",
                family: str | None = None) -> list[str]:
    concealed = _tiles(format_tiles(seat.concealed), lang, family) or _t("nothing", lang, family)
    win = next((w for w in replay.winners if w.seat == seat.seat), None)
    if win is not None and not win.self_drawn:
        concealed += _t(" + {tile} (won)", lang, family, tile=_tile(win.tile, lang))
    state = []
    if won:
        state.append(_t("won", lang, family))
    elif seat.ready:
        state.append(_t("ready on {tiles}", lang, family,
                        tiles=_tiles(format_tiles(seat.waits), lang, family)))
    else:
        state.append(_t("not ready", lang, family))
    if seat.declared_ready_at is not None:
        kind = zh("ready", "hard", family) if seat.hard_ready else zh("ready", "soft", family)
        state.append(_t("declared ready at event {index} ({kind})", lang, family,
                        index=seat.declared_ready_at, kind=kind))
    sep = "；" if lang == "zh" else "; "
    lines = [_t("  {seat}: {concealed}  [{state}]", lang, family,
                seat=_seat(seat.seat, names, lang), concealed=concealed,
                state=sep.join(state))]
    comma = "、" if lang == "zh" else ", "
    if seat.melds:
        lines.append(_t("      melds: ", lang, family)
                     + comma.join(_meld_text(m, lang, family) for m in seat.melds))
    if seat.discards:
        lines.append(_t("      discards: ", lang, family)
                     + " ".join(_discard_text(d, lang, family) for d in seat.discards))
    return lines


def format_table_extras(replay: HandReplay, names: Sequence[str],
                        lang: Lang = "en", *, family: str | None = None) -> list[str]:
    """The birds (扎鸟), in the hands of a family whose wall has them."""
    out = []
    wall = replay.wall_facts
    if wall is not None and wall.birds:
        comma = "、" if lang == "zh" else ", "
        out.append(_t("birds: {birds}", lang, family, birds=comma.join(
            _t("{tile} to {seat}", lang, family, tile=_tile(tile, lang),
               seat=_seat(seat, names, lang))
            for tile, seat in zip(wall.birds, wall.bird_seats, strict=True))))
    return out


def _no_lines(place: str, view: HandText) -> list[str]:
    return []


def format_hand(audit: GameAudit, hand: HandAudit, *, full: bool,
                lang: Lang = "en") -> list[str]:
    """The human view of one hand (``full``: the ``--hand N`` view), in ``lang`` and in the
    words of the ruleset's family, with the family's own lines where it adds them
    (``Family.text_lines``: :mod:`zhuoji.rules.referee`)."""
    names = audit.names
    record, replay, settlement = hand.record, hand.replay, hand.settlement
    assert audit.ruleset is not None
    family = family_of(audit.ruleset)
    words = family.name
    head = _t("== {game} hand {hand} | ruleset {ruleset} | dealer {dealer}", lang, words,
              game=audit.game.game_id, hand=record.hand_no, ruleset=audit.ruleset.name,
              dealer=_seat(record.dealer, names, lang))
    if record.dealer_streak:
        head += _t(", 连庄 {streak}", lang, words, streak=record.dealer_streak)
    if record.base_stake != 1:
        head += _t(" | base stake {stake}", lang, words, stake=record.base_stake)
    lines = [head + f" | {audit.path}",
             _t("outcome: {outcome}", lang, words,
                outcome=format_outcome(replay, names, lang, family=words))]
    lines.extend(format_winners(hand, names, lang, family=words))
    view = HandText(hand, names, lang, words, full)
    own = family.text_lines or _no_lines
    if full and replay.seats:
        lines.append(_t("tiles as the hand ended:", lang, words))
        lines.extend(format_tiles_at_end(replay, names, lang, family=words))
        lines.extend(own(TEXT_TILES, view))
    lines.extend(own(TEXT_TABLE, view))
    lines.extend(format_table_extras(replay, names, lang, family=words))
    if settlement is not None:
        lines.extend(own(TEXT_SETTLEMENT, view))
        lines.append(_t("ledger (recomputed):", lang, words))
        lines.extend(format_ledger(settlement, lang, family=words))
    lines.append(_t("deltas:", lang, words))
    lines.extend(format_deltas(hand, names, lang, family=words))
    lines.append(_t("findings:", lang, words))
    lines.extend(format_findings(hand, lang, family=words))
    if full and settlement is not None:
        lines.append(_t("explanation:", lang, words))
        lines.extend("  " + line
                     for line in explanation_lines(settlement, names, lang, words))
        verdict = format_verdict(hand, names, lang, family=words)
        if verdict:
            lines.append(_t("what the record has wrong:", lang, words))
            lines.extend(verdict)
    return lines
