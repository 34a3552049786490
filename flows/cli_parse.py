"""Commands that only parse: ``zhuoji schema``, ``zhuoji convert``, ``zhuoji validate``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.text import Text

from flows.app import app
from flows.discover import LogPaths, find_log_paths
from parsers import fast
from parsers.errors import MalformedLogError
from parsers.limits import current_limits
from parsers.models import Game
from parsers.read import generate_fast_games, generate_games, parse_encoding
from parsers.schema import format_json_schema
from parsers.write import write_games

EXIT_MALFORMED = 2


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)


@app.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of a zhuoji-log/1 game document."""
    sys.stdout.write(format_json_schema())


def expand_paths(paths: list[str]) -> LogPaths:
    """Files named by ``paths``, the arguments that name nothing readable and the paths
    skipped (:func:`flows.discover.find_log_paths`)."""
    return find_log_paths(paths)


def check_limits() -> None:
    """Stop with exit status 2 when a ``ZHUOJI_MAX_…`` variable holds no size."""
    try:
        current_limits()
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_MALFORMED) from None


@dataclass(slots=True)
class FileReport:
    path: Path
    games: int = 0
    errors: list[MalformedLogError] = field(default_factory=list)


@lru_cache(maxsize=64)
def _ruleset_fault(name: str, overrides_json: str) -> str | None:
    from rules.presets import resolve_ruleset

    try:
        resolve_ruleset(name, orjson.loads(overrides_json) or None)
    except ValueError as exc:
        return f"no usable ruleset: {exc}"
    return None


def ruleset_error(game: fast.Game, path: str) -> MalformedLogError | None:
    """The error ``zhuoji ingest`` quarantines a game with when its ruleset (the preset
    and the ``rule_overrides``) cannot be used, ``None`` when it can."""
    overrides = orjson.dumps(game.rule_overrides or {}, option=orjson.OPT_SORT_KEYS).decode()
    reason = _ruleset_fault(game.ruleset, overrides)
    if reason is None:
        return None
    return MalformedLogError(reason, path=path, json_path="ruleset", game_id=game.game_id)


def validate_file(path: Path) -> FileReport:
    """Parse every game of one file; malformed games are collected, not raised. A game
    whose ruleset cannot be used counts as malformed, as the ingest quarantines it."""
    report = FileReport(path)
    try:
        parse_encoding(path)
    except ValueError as exc:
        report.errors.append(MalformedLogError(str(exc).split(": ", 1)[-1], path=str(path)))
        return report
    for item in generate_fast_games(path):  # the same games and errors as the models, faster
        if not isinstance(item, MalformedLogError):
            fault = ruleset_error(item, str(path))
            if fault is None:
                report.games += 1
                continue
            item = fault
        report.errors.append(item)
    return report


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@app.command("validate")
def validate_command(
    paths: Annotated[
        list[str], typer.Argument(help="log files, folders (searched recursively) or globs")
    ],
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="print only errors and the summary")
    ] = False,
) -> None:
    """Parse log files (no replay) and report every malformed game or file.

    Exit status 0 when everything parses, 2 when anything is malformed or missing.
    """
    console = _console()
    check_limits()
    expanded = expand_paths(paths)
    bad_files = 0
    games = 0
    bad_games = 0
    for missing in expanded.missing:
        console.print(Text.assemble(("error ", "bold red"), f"{missing}: {expanded.why(missing)}"))
    for skip in expanded.skipped:
        console.print(Text.assemble(("skip  ", "yellow"), f"{skip.path}: {skip.reason}"))
    for path in expanded.files:
        report = validate_file(path)
        games += report.games
        bad_games += len(report.errors)
        if report.errors:
            bad_files += 1
            for error in report.errors:
                console.print(Text.assemble(("error ", "bold red"), str(error)))
        elif not quiet:
            console.print(
                Text.assemble(("ok    ", "green"), f"{path}: {_plural(report.games, 'game')}")
            )
    total_files = len(expanded.files)
    summary = (
        f"{_plural(total_files, 'file')}: {total_files - bad_files} valid, "
        f"{bad_files} malformed; {_plural(games, 'game')} parsed, "
        f"{bad_games} malformed"
    )
    if expanded.missing:
        summary += f"; {len(expanded.missing)} not found or not readable"
    if expanded.skipped:
        summary += f"; {len(expanded.skipped)} skipped"
    console.print(summary)
    if bad_files or expanded.missing:
        raise typer.Exit(EXIT_MALFORMED)


def _generate_or_raise(path: Path) -> Iterator[Game]:
    for item in generate_games(path):
        if isinstance(item, MalformedLogError):
            raise item
        yield item


@app.command("convert")
def convert_command(
    source: Annotated[Path, typer.Argument(help="log file to read")],
    target: Annotated[
        Path, typer.Argument(help="file to write; its name gives the encoding (.json, .jsonl, .gz)")
    ],
    indent: Annotated[
        bool, typer.Option("--indent", help="indent a document with two spaces")
    ] = False,
) -> None:
    """Convert a log between the document and stream encodings (losslessly).

    The target is written only when every game of the source parses; a document holds
    exactly one game.
    """
    console = _console()
    try:
        parse_encoding(source)
        parse_encoding(target)
    except ValueError as exc:
        console.print(Text.assemble(("error ", "bold red"), str(exc)))
        raise typer.Exit(EXIT_MALFORMED) from None
    # Written under a temporary name that keeps the suffix (it sets the encoding), then
    # moved into place, so a failed conversion leaves no partial target behind.
    partial = target.with_name(f".partial-{os.getpid()}-{target.name}")
    try:
        count = write_games(partial, _generate_or_raise(source), indent=indent)
    except (MalformedLogError, ValueError, OSError) as exc:
        partial.unlink(missing_ok=True)
        console.print(Text.assemble(("error ", "bold red"), str(exc)))
        raise typer.Exit(EXIT_MALFORMED) from None
    os.replace(partial, target)
    console.print(f"wrote {_plural(count, 'game')} to {target}")
