"""The Ruleset model: validation, setting names, overrides, small accessors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from zhuoji.rules.events import KongKind
from zhuoji.rules.families.guizhou.patterns import SHAPE_PATTERNS
from zhuoji.rules.families.guizhou.settings import (
    FLAT_PREFIXES,
    SETTING_PATHS,
    ChickenScope,
    ChickenSettings,
    KongSettings,
    PatternValues,
    Ruleset,
    StandingChicken,
)
from zhuoji.rules.settings import (
    RulesetError,
    UnknownSettingError,
    apply_overrides,
    diff_settings,
    format_setting,
    setting_value,
    settings_of,
)
from zhuoji.rules.tiles import Tile


def _base() -> Ruleset:
    return Ruleset(name="t")


def _int_paths() -> list[str]:
    base = _base()
    return [
        p
        for p in SETTING_PATHS
        if isinstance(setting_value(base, p), int) and not isinstance(setting_value(base, p), bool)
    ]


def _nested(path: str, value: object) -> dict[str, Any]:
    if "." in path:
        section, field = path.split(".")
        return {"name": "t", section: {field: value}}
    return {"name": "t", path: value}


def test_every_setting_is_described() -> None:
    for path in SETTING_PATHS:
        assert Ruleset.setting_description(path).strip(), path


def test_setting_paths_cover_sections_and_legality_fields() -> None:
    for legacy in (
        "players",
        "wildcards",
        "multiple_winners",
        "pass_rule",
        "declared_ready",
        "missing_suit_required",
        "robbing_kong",
        "flip_chicken",
    ):
        assert legacy in SETTING_PATHS
    sections = {p.split(".")[0] for p in SETTING_PATHS if "." in p}
    assert sections == set(FLAT_PREFIXES)
    assert "name" not in SETTING_PATHS and "title" not in SETTING_PATHS


def test_shape_patterns_all_have_a_value() -> None:
    assert set(PatternValues.model_fields) == {p.value for p in SHAPE_PATTERNS}


def test_ruleset_is_frozen() -> None:
    r = _base()
    with pytest.raises(ValidationError):
        r.players = 3  # type: ignore[misc]
    with pytest.raises(ValidationError):
        r.kongs.exposed = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    "data",
    [
        {"name": "t", "unknown": 1},
        {"name": "t", "kongs": {"exposd": 1}},
        {"name": "t", "chickens": {"standing": [{"tile": "1s", "valu": 1}]}},
    ],
)
def test_extra_keys_are_forbidden(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Ruleset.model_validate(data)


@pytest.mark.parametrize("path", _int_paths())
def test_negative_numbers_are_rejected(path: str) -> None:
    with pytest.raises(ValidationError):
        Ruleset.model_validate(_nested(path, -1))


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("players", 5),
        ("players", 1),
        ("patterns.plain", 0),
        ("chickens.gold_multiplier", 0),
        ("chickens.scope", "everywhere"),
        ("dealer.two_winners", "nobody"),
        ("robbed_kong.valued_as", "half_flush"),
    ],
)
def test_out_of_range_values_are_rejected(path: str, value: object) -> None:
    with pytest.raises(ValidationError):
        Ruleset.model_validate(_nested(path, value))


def test_standing_chickens_parse_and_dump_tile_text() -> None:
    r = Ruleset.model_validate(
        {"name": "t", "chickens": {"standing": [{"tile": "8p", "value": 2, "charging": 6}]}}
    )
    assert r.chickens.standing_tiles == (Tile.P8,)
    entry = r.chickens.standing_of(Tile.P8)
    assert entry is not None and entry.value == 2 and entry.charging == 6
    assert r.chickens.standing_of(Tile.S1) is None
    assert r.model_dump(mode="json")["chickens"]["standing"][0]["tile"] == "8p"


@pytest.mark.parametrize(
    "standing",
    [
        [{"tile": "1s"}, {"tile": "1s"}],
        [{"tile": "W"}],
        [{"tile": "0s"}],
        [{"tile": "1s", "value": 0}],
    ],
)
def test_bad_standing_chickens_are_rejected(standing: list[dict[str, Any]]) -> None:
    with pytest.raises(ValidationError):
        ChickenSettings.model_validate({"standing": standing})


def test_kong_values_by_kind_and_uniform() -> None:
    kongs = KongSettings(exposed=1, concealed=2, added=3)
    assert [kongs.value_of(k) for k in KongKind] == [1, 3, 2]  # exposed, added, concealed
    uniform = KongSettings(exposed=1, concealed=2, added=3, uniform=3)
    assert [uniform.value_of(k) for k in KongKind] == [3, 3, 3]


def test_hot_discard_value_by_kind() -> None:
    r = Ruleset.model_validate(
        {"name": "t", "hot_discard": {"exposed": 10, "added": 30, "concealed": 60}}
    )
    assert r.hot_discard.value_after(KongKind.EXPOSED) == 10
    assert r.hot_discard.value_after(KongKind.ADDED) == 30
    assert r.hot_discard.value_after(KongKind.CONCEALED) == 60


def test_pattern_value_of() -> None:
    values = PatternValues(seven_pairs=7)
    assert values.value_of("seven_pairs") == 7
    assert values.value_of("plain") == 1
    with pytest.raises(RulesetError, match="no shape pattern named 'heavenly'"):
        values.value_of("heavenly")


@pytest.mark.parametrize(
    ("key", "path"),
    [
        ("players", "players"),
        ("chickens.scope", "chickens.scope"),
        ("chicken_scope", "chickens.scope"),
        ("kong_uniform", "kongs.uniform"),
        ("dealer_streak_bonus", "dealer.streak_bonus"),
        ("pattern_seven_pairs", "patterns.seven_pairs"),
        ("penalty_false_hand", "penalties.false_hand"),
    ],
)
def test_setting_keys(key: str, path: str) -> None:
    assert Ruleset.parse_setting_key(key) == path


def test_every_setting_has_a_distinct_flat_alias() -> None:
    aliases = [Ruleset.flat_alias(p) for p in SETTING_PATHS]
    assert len(set(aliases)) == len(aliases)
    for path, alias in zip(SETTING_PATHS, aliases, strict=True):
        assert Ruleset.parse_setting_key(alias) == path


def test_unknown_setting_key_suggests_close_names() -> None:
    with pytest.raises(UnknownSettingError, match="did you mean 'chicken_scope'"):
        Ruleset.parse_setting_key("chiken_scope")
    with pytest.raises(UnknownSettingError, match="cannot be overridden"):
        Ruleset.parse_setting_key("name")


def test_apply_overrides_replaces_single_settings() -> None:
    base = _base()
    r = apply_overrides(
        base,
        {
            "chicken_scope": "hand_and_discards",
            "kongs.added": 4,
            "players": 3,
            "chickens.standing": [{"tile": "1s", "value": 1}, {"tile": "7p", "value": 1}],
        },
    )
    assert r.chickens.scope is ChickenScope.HAND_AND_DISCARDS
    assert r.kongs.added == 4 and r.players == 3
    assert r.chickens.standing_tiles == (Tile.S1, Tile.P7)
    assert [p for p, _, _ in diff_settings(base, r)] == [
        "players",
        "kongs.added",
        "chickens.standing",
        "chickens.scope",
    ]
    assert base.chickens.scope is ChickenScope.HAND  # the original is untouched


def test_apply_overrides_errors_name_ruleset_and_setting() -> None:
    base = _base()
    with pytest.raises(RulesetError, match=r"ruleset 't'.*'chicken_scope' \(chickens.scope\)"):
        apply_overrides(base, {"chicken_scope": "everywhere"})
    with pytest.raises(UnknownSettingError, match="ruleset 't': unknown setting 'bogus'"):
        apply_overrides(base, {"bogus": 1})
    with pytest.raises(RulesetError, match="overridden twice"):
        apply_overrides(base, {"kong_added": 1, "kongs.added": 2})
    with pytest.raises(RulesetError, match=r"'kongs\.exposed' = -2"):
        apply_overrides(base, {"kongs.exposed": -2})


def test_errors_are_value_errors() -> None:
    assert issubclass(RulesetError, ValueError)
    assert issubclass(UnknownSettingError, RulesetError)


def test_settings_of_and_format() -> None:
    r = _base()
    values = settings_of(r)
    assert list(values) == list(SETTING_PATHS)
    assert values["kongs.concealed"] == 2
    assert format_setting(True) == "true"
    assert format_setting(ChickenScope.HAND) == "hand"
    assert format_setting(()) == "(none)"
    chicken = StandingChicken(tile=Tile.S1, value=1, charging=3, responsibility=2)
    assert format_setting((chicken,)) == "1s value 1, charging 3, responsibility 2"
