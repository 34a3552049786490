"""The one memo type: its overflow policy (emptied when full, with its dependents),
clear_all(), and the values computed once per ruleset (RulesetBase.derived)."""

from __future__ import annotations

import pickle

import pytest

import zhuoji.rules.families.guizhou.settlement
import zhuoji.rules.families.guizhou.simulate
import zhuoji.rules.hand as hand
import zhuoji.rules.shanten
import zhuoji.rules.table
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.hand import is_complete, waiting_tiles
from zhuoji.rules.memo import Memo, clear_all, memos, on_clear_all
from zhuoji.rules.presets import load_preset
from zhuoji.rules.settings import apply_overrides
from zhuoji.rules.tiles import counts_of, parse_tiles


def test_a_full_memo_is_emptied_before_the_new_entry() -> None:
    memo: Memo[int, str] = Memo("test.full", 3, register=False)
    for key in range(3):
        assert memo.put(key, str(key)) == str(key)
    assert memo.data == {0: "0", 1: "1", 2: "2"} and len(memo) == 3
    memo.put(3, "3")  # full: emptied, then the new entry
    assert memo.data == {3: "3"}
    assert memo.get(3) == "3" and memo.get(0) is None


def test_the_data_dict_is_emptied_in_place() -> None:
    memo: Memo[int, int] = Memo("test.in_place", 2, register=False)
    data = memo.data
    memo.put(1, 1)
    memo.put(2, 2)
    memo.put(3, 3)
    memo.clear()
    assert memo.data is data and data == {}


def test_dependents_and_resets_are_emptied_with_their_table() -> None:
    ids: Memo[str, int] = Memo("test.ids", 2, register=False)
    using: Memo[int, int] = Memo("test.using", 10, register=False)
    interned: list[str] = []
    owner: Memo[str, int] = Memo("test.owner", 2, (using,), register=False)
    owner.on_clear(interned.clear)
    interned.extend(["a", "b"])
    owner.put("a", 0)
    using.put(0, 10)
    owner.put("b", 1)
    owner.put("c", 2)  # full: the owner, its dependent and its reset start afresh
    assert owner.data == {"c": 2} and using.data == {} and interned == []
    assert ids.data == {}  # another table is untouched
    with pytest.raises(ValueError, match="at least 1"):
        Memo("test.zero", 0, register=False)


def test_clear_all_empties_every_registered_table_and_structure() -> None:
    memo: Memo[int, int] = Memo("test.registered", 10)
    memo.put(1, 1)
    reset: list[int] = []
    on_clear_all(lambda: reset.append(1))
    assert memo in memos()
    assert is_complete(counts_of(parse_tiles("123m456p789s123s11p")))
    assert waiting_tiles(counts_of(parse_tiles("123m456p789s123s1p")))
    assert sum(len(m) for m in memos()) > 1
    clear_all()
    assert memo.data == {} and reset == [1]
    assert all(len(m) == 0 for m in memos()) and hand._SUITS is None
    assert zhuoji.rules.families.guizhou.simulate and zhuoji.rules.shanten and zhuoji.rules.table
    assert zhuoji.rules.families.guizhou.settlement
    names = {m.name for m in memos()}
    assert {"hand.info", "hand.waits", "shanten.suits", "table.melds",
            "settlement.win_values", "simulate.orders"} <= names
    # and nothing depends on them
    counts = counts_of(parse_tiles("123m456p789s1s"))
    assert waiting_tiles(counts) == waiting_tiles(list(counts))


def test_values_derived_from_a_ruleset_are_computed_once_per_ruleset() -> None:
    calls: list[str] = []

    def plain_value(ruleset: Ruleset) -> int:
        calls.append(ruleset.name)
        return ruleset.patterns.plain

    guiyang = load_preset("guiyang")
    assert guiyang.derived(plain_value) == guiyang.derived(plain_value) == 1
    assert calls == ["guiyang"]
    changed = apply_overrides(guiyang, {"pattern_plain": 4})
    assert changed.derived(plain_value) == 4 and calls == ["guiyang", "guiyang"]
    # a copy computes its own (it may be an updated copy), equality ignores them
    copy = guiyang.model_copy()
    assert copy == guiyang and copy.derived(plain_value) == 1 and len(calls) == 3
    updated = guiyang.model_copy(update={"title": "other"})
    assert updated.derived(plain_value) == 1 and len(calls) == 4
    # they are no setting: not dumped, not hashed, not compared
    assert guiyang.model_dump() == copy.model_dump() and hash(guiyang) == hash(copy)
    assert " derived" not in guiyang.model_dump_json()
    # a pickled ruleset travels without its derived values and computes them again
    back = pickle.loads(pickle.dumps(guiyang))
    assert back == guiyang and back.derived(plain_value) == 1 and len(calls) == 5
