"""Robustness: mutated logs through parse -> bridge -> ruleset -> audit never crash.

The mutations and the fuzz target live in ``tests/support/mutate.py`` (shared with
``bench/fuzz.py``, which runs the same over a million seeded inputs). Here hypothesis
draws the seed game and every random choice of the mutations (``st.randoms()``, so a
failure shrinks to few, small choices), once per mutation level, derandomized so the
suite is deterministic. An acceptable outcome is a MalformedLogError, a RulesetError for
the game's ruleset, or an audit per hand that keeps its invariants; anything else fails.

The other tests pin the harness itself: its classes are told apart, a crash and a broken
invariant are caught and located, inputs are deterministic, every mutation applies to the
corpus, and the mutated inputs reach every outcome class and most violation codes (a
fuzzer whose inputs all fail to parse would prove nothing).
"""

from __future__ import annotations

import dataclasses
import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.support.mutate as mutate
from tests.support.mutate import (
    FAILURES,
    SEMANTIC,
    TREE,
    Context,
    FuzzInput,
    Level,
    Outcome,
    SeedGame,
    Verdict,
    generate_input,
    generate_seed_games,
    run_input,
)
from zhuoji.parsers.read import Encoding
from zhuoji.rules.audit import HandAudit
from zhuoji.rules.violations import ViolationCode


@cache
def _corpus() -> tuple[list[SeedGame], Context]:
    seeds = generate_seed_games(simulated=2)
    return seeds, Context.from_seeds(seeds)


def _seed(name_prefix: str) -> SeedGame:
    seeds, _ = _corpus()
    return next(s for s in seeds if s.name.startswith(name_prefix))


def _run(inp: FuzzInput) -> Verdict:
    return run_input(inp.data, inp.encoding, inp.gzipped)


def _explain(inp: FuzzInput, verdict: Verdict) -> str:
    assert verdict.failure is not None
    return (
        f"{verdict.outcome}: {verdict.failure.key}\nseed game {inp.seed}, mutations "
        f"{list(inp.steps)}, {inp.encoding} gzipped={inp.gzipped}\n{verdict.failure.detail}"
    )


def _fuzz(examples: int) -> settings:
    """Deterministic (derandomized, no example database), no per-example deadline."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _check_level(level: Level, rng: random.Random) -> None:
    seeds, ctx = _corpus()
    inp = generate_input(seeds, rng, ctx, level)
    verdict = _run(inp)
    assert verdict.outcome not in FAILURES, _explain(inp, verdict)


@_fuzz(400)
@given(rng=st.randoms(use_true_random=False))
def test_semantic_mutations_never_crash(rng: random.Random) -> None:
    _check_level(Level.SEMANTIC, rng)


@_fuzz(200)
@given(rng=st.randoms(use_true_random=False))
def test_json_tree_mutations_never_crash(rng: random.Random) -> None:
    _check_level(Level.TREE, rng)


@_fuzz(200)
@given(rng=st.randoms(use_true_random=False))
def test_stream_line_mutations_never_crash(rng: random.Random) -> None:
    _check_level(Level.LINES, rng)


@_fuzz(300)
@given(rng=st.randoms(use_true_random=False))
def test_byte_mutations_never_crash(rng: random.Random) -> None:
    _check_level(Level.BYTES, rng)


# --- known crashes, found by bench/fuzz.py (minimal reproducers) ---------------------------

_GAME = b'{"type":"start_game","game_id":"g","players":[{"seat":0,"id":"a"},{"seat":1,"id":"b"}]}\n'
_HAND = b'{"type":"start_hand","hand_no":1,"dealer":0,"deal":[[],[]]}\n'
_END = b'{"type":"end_game"}\n'


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(
            b'{"type":"start_game","x":' + b"[" * 5000 + b"]" * 5000 + b"}\n" + _END,
            id="deep-start_game-RecursionError",
        ),
        pytest.param(
            _GAME + _HAND + b'{"type":"end_hand","result":' + b"[" * 300 + b"]" * 300 + b"}\n"
            + _END,
            id="deep-end_hand-result-TypeError",
        ),
        pytest.param(
            _GAME + b'{"type":"start_hand","x":' + b"[" * 300 + b"]" * 300 + b"}\n"
            + b'{"type":"end_hand"}\n' + _END,
            id="deep-start_hand-TypeError",
        ),
        pytest.param(
            b'{"type":"start_game","game_id":"\\ud800"}\n' + _END,
            id="lone-surrogate-start_game-UnicodeEncodeError",
        ),
    ],
)
def test_stream_control_lines_that_crash_the_reader(data: bytes) -> None:
    verdict = run_input(data, Encoding.STREAM, False)
    assert verdict.outcome is Outcome.MALFORMED, verdict.failure


# --- the harness ----------------------------------------------------------------------------


def test_outcome_classes_are_told_apart() -> None:
    sample = _seed("data/sample/t7-20261101-0001.json")
    tree = sample.tree()
    assert run_input(sample.document, Encoding.DOCUMENT, False).outcome is Outcome.CLEAN

    assert run_input(sample.document[:-1], Encoding.DOCUMENT, False).outcome is Outcome.MALFORMED

    tree["ruleset"] = "no-such-preset"
    verdict = run_input(mutate.dump_json(tree), Encoding.DOCUMENT, False)
    assert verdict.outcome is Outcome.RULESET_ERROR
    assert verdict.ruleset_errors == 1

    tree = sample.tree()
    tree["hands"][0]["events"].pop(0)  # the dealer's first discard
    verdict = run_input(mutate.dump_json(tree), Encoding.DOCUMENT, False)
    assert verdict.outcome is Outcome.VIOLATIONS
    assert verdict.codes  # the codes found are reported
    assert verdict.hands == len(tree["hands"])


def test_a_crash_is_caught_and_located(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(record: object, ruleset: object) -> HandAudit:
        raise KeyError("boom")

    monkeypatch.setattr(mutate, "audit_hand", explode)
    sample = _seed("data/sample/t7-20261101-0001.json")
    verdict = run_input(sample.document, Encoding.DOCUMENT, False)
    assert verdict.outcome is Outcome.CRASH
    assert verdict.failure is not None
    assert verdict.failure.key.startswith("KeyError at tests/rules/test_fuzz.py:")
    assert "explode" in verdict.failure.key
    assert "KeyError: 'boom'" in verdict.failure.detail


def test_a_broken_invariant_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = mutate.audit_hand

    def lopsided(record: object, ruleset: object) -> HandAudit:
        audit = real(record, ruleset)  # type: ignore[arg-type]
        assert audit.settlement is not None
        deltas = (audit.settlement.deltas[0] + 1, *audit.settlement.deltas[1:])
        settlement = dataclasses.replace(audit.settlement, deltas=deltas)
        return dataclasses.replace(audit, settlement=settlement)

    monkeypatch.setattr(mutate, "audit_hand", lopsided)
    sample = _seed("data/sample/t7-20261101-0001.json")
    verdict = run_input(sample.document, Encoding.DOCUMENT, False)
    assert verdict.outcome is Outcome.BROKEN
    assert verdict.failure is not None
    assert verdict.failure.key == "invariant zero_sum"


@pytest.mark.parametrize("level", list(Level))
def test_inputs_are_deterministic_and_mutated(level: Level) -> None:
    seeds, ctx = _corpus()
    for i in range(20):
        first = generate_input(seeds, random.Random(f"det/{i}"), ctx, level)
        again = generate_input(seeds, random.Random(f"det/{i}"), ctx, level)
        assert first == again
        assert first.steps, f"input {i} at level {level} was not mutated"


@pytest.mark.parametrize(
    ("name", "op"), [(name, op) for name, op, _ in (*SEMANTIC, *TREE)], ids=lambda x: x
    if isinstance(x, str) else ""
)
def test_every_mutation_applies_and_changes_the_game(name: str, op: mutate.Op) -> None:
    seeds, ctx = _corpus()
    changed = 0
    for seed in seeds:
        for k in range(4):
            tree = seed.tree()
            if op(tree, random.Random(f"op/{name}/{seed.name}/{k}"), ctx) is None:
                continue
            changed += mutate.dump_json(tree) != seed.document
    assert changed, f"{name} changed none of the {len(seeds)} seed games"


def test_mutated_inputs_reach_every_outcome_and_most_codes() -> None:
    seeds, ctx = _corpus()
    outcomes: set[Outcome] = set()
    codes: set[str] = set()
    for i in range(400):
        verdict = _run(generate_input(seeds, random.Random(f"reach/{i}"), ctx))
        outcomes.add(verdict.outcome)
        codes.update(verdict.codes)
    assert outcomes - FAILURES == {
        Outcome.CLEAN, Outcome.VIOLATIONS, Outcome.MALFORMED, Outcome.RULESET_ERROR
    }
    assert len(codes) >= 15, sorted(codes)
    assert codes <= {c.value for c in ViolationCode}
