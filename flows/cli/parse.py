"""Commands that only parse: ``zhuoji schema``, ``zhuoji convert``, ``zhuoji validate``.

The parsers and Rich are imported when a command runs (``zhuoji --help`` needs neither).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zhuoji.flows.cli.errors import EXIT_ERROR, describe_error, fail, is_debug, set_json_errors
from zhuoji.flows.cli.jsonout import JsonOption, print_json, use_json
from zhuoji.flows.cli.lang import LangOption, use_lang
from zhuoji.flows.text.terminal import make_console, safe

if TYPE_CHECKING:
    from rich.console import Console

    from zhuoji.flows.ingest.discover import LogPaths
    from zhuoji.parsers.errors import MalformedLogError
    from zhuoji.parsers.models import Game
    from zhuoji.rules.glossary import Lang

EXIT_MALFORMED = EXIT_ERROR


def _console(*, stderr: bool = False) -> Console:
    return make_console(highlight=False, soft_wrap=True, emoji=False, stderr=stderr)


def schema_command(lang: LangOption = None) -> None:
    """Print the JSON Schema of a zhuoji-log/1 game document."""
    use_lang(lang)
    from zhuoji.parsers.schema import format_json_schema

    sys.stdout.write(format_json_schema())


def expand_paths(paths: list[str]) -> LogPaths:
    """Files named by ``paths``, the arguments that name nothing readable and the paths
    skipped (:func:`zhuoji.flows.ingest.discover.find_log_paths`)."""
    from zhuoji.flows.ingest.discover import find_log_paths

    return find_log_paths(paths)


def check_limits() -> None:
    """Stop with exit status 2 when a ``ZHUOJI_MAX_…`` variable holds no size."""
    from zhuoji.parsers.limits import current_limits

    try:
        current_limits()
    except ValueError as exc:
        raise fail(exc) from None


@dataclass(slots=True)
class FileReport:
    path: Path
    games: int = 0
    errors: list[MalformedLogError] = field(default_factory=list)
    failure: str | None = None  # why the file could not be read at all (an OSError ...)

    @property
    def is_valid(self) -> bool:
        return not self.errors and self.failure is None


def validate_file(path: Path) -> FileReport:
    """Parse every game of one file; malformed games are collected, not raised, and a
    file that cannot be read (permissions, an I/O error) is reported, not raised. A game
    whose ruleset (its preset and ``rule_overrides``, as the ingest stores and resolves
    them) cannot be used counts as malformed, with the error the ingest quarantines it
    with."""
    from zhuoji.flows.audit.service import AuditOptions, FileFault, generate_audits
    from zhuoji.parsers.errors import MalformedLogError
    from zhuoji.rules.messages import Message

    report = FileReport(path)
    try:
        # the same games and errors as the models; the tiles of each game's family
        for item in generate_audits(path, AuditOptions(audit=False, as_stored=True)):
            if isinstance(item, FileFault):
                report.errors.append(item.error)
            elif item.error is not None:
                report.errors.append(MalformedLogError(
                    Message("no usable ruleset: {why:said}", item.error), path=str(path),
                    json_path="ruleset",
                    game_id=item.game.game_id,
                ))
            else:
                report.games += 1
    except (BrokenPipeError, KeyboardInterrupt):
        raise
    except Exception as exc:  # one file's fault never costs the others
        if is_debug():
            traceback.print_exception(exc, file=sys.stderr)
        report.failure = describe_error(exc)
    return report


def _plural(n: int, word: str, lang: Lang = "en") -> str:
    from zhuoji.rules.glossary import text

    return text(f"{{n}} {word}" if n == 1 else f"{{n}} {word}s", lang, n=n)


def _error_json(error: MalformedLogError) -> dict[str, Any]:
    out: dict[str, Any] = {"message": error.reason, "sentence": str(error)}
    for key in ("line", "column", "json_path", "game_id"):
        value = getattr(error, key)
        if value is not None:
            out[key] = value
    return out


def report_json(report: FileReport) -> dict[str, Any]:
    """The ``zhuoji validate --json`` line of one file."""
    status = "valid" if report.is_valid else "unreadable" if report.failure else "malformed"
    obj: dict[str, Any] = {
        "file": str(report.path),
        "status": status,
        "games": report.games,
        "malformed_games": len(report.errors),
        "errors": [_error_json(e) for e in report.errors],
    }
    if report.failure is not None:
        obj["errors"].append({"message": report.failure})
    return obj


def validate_command(
    paths: Annotated[
        list[str], typer.Argument(help="Log files, folders (searched recursively) or globs.")
    ],
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only the errors and the summary.")
    ] = False,
    json_lines: Annotated[
        bool,
        typer.Option("--json", help="Print one JSON object per file, then one summary object."),
    ] = False,
    lang: LangOption = None,
) -> None:
    """Parse log files (no replay) and report every malformed game or file.

    Each error names the file, the line and the field. A missing path is reported on
    stderr; the rest of the report goes to stdout.

    With --json: one line per file {"file", "status" (valid, malformed or unreadable),
    "games", "malformed_games", "errors": [{"message", "line", "column", "json_path",
    "game_id", "sentence"}]}, one line {"file", "status": "missing"} per path that names
    nothing, and last {"summary": {"files", "valid", "malformed", "missing", "games",
    "malformed_games"}}.

    Exit status: 0 when everything parses, 2 when anything is malformed, unreadable or
    missing.
    """
    language = use_lang(lang)
    set_json_errors(json_lines)
    import orjson
    from rich.text import Text

    from zhuoji.flows.text.messages import malformed_text
    from zhuoji.rules.glossary import render, text
    from zhuoji.rules.messages import Message

    def t(english: str) -> str:
        return text(english, language)

    console = _console()
    err_console = _console(stderr=True)

    def emit_json(obj: dict[str, Any]) -> None:
        sys.stdout.write(orjson.dumps(obj).decode() + "\n")

    check_limits()
    expanded = expand_paths(paths)
    bad_files = 0
    games = 0
    bad_games = 0
    for missing in expanded.missing:
        if json_lines:
            emit_json({"file": missing, "status": "missing", "errors": [
                {"message": expanded.why(missing)}]})
        else:
            why = render(Message("{path:any}: {reason:said}", missing, expanded.why(missing)),
                         language)
            err_console.print(Text.assemble((t("error "), "bold red"), safe(why)))
    for skip in expanded.skipped:
        if json_lines:
            emit_json({"file": str(skip.path), "status": "skipped", "reason": skip.reason})
        else:
            console.print(Text.assemble((t("skip  "), "yellow"), safe(render(
                Message("{path:any}: {reason:said}", str(skip.path), skip.reason), language))))
    for path in expanded.files:
        report = validate_file(path)
        games += report.games
        bad_games += len(report.errors)
        if not report.is_valid:
            bad_files += 1
        if json_lines:
            emit_json(report_json(report))
            continue
        for error in report.errors:
            console.print(Text.assemble((t("error "), "bold red"),
                                        safe(malformed_text(error, language))))
        if report.failure is not None:
            console.print(Text.assemble((t("error "), "bold red"), safe(render(
                Message("{path:any}: {reason:said}", str(path), report.failure), language))))
        if report.is_valid and not quiet:
            console.print(Text.assemble(
                (t("ok    "), "green"),
                f"{safe(path)}: {_plural(report.games, 'game', language)}"))
    total_files = len(expanded.files)
    if json_lines:
        emit_json({"summary": {
            "files": total_files,
            "valid": total_files - bad_files,
            "malformed": bad_files,
            "missing": len(expanded.missing),
            "skipped": len(expanded.skipped),
            "games": games,
            "malformed_games": bad_games,
        }})
    else:
        summary = text(
            "{files}: {valid} valid, {bad} malformed; {games} parsed, {bad_games} malformed",
            language, files=_plural(total_files, "file", language),
            valid=total_files - bad_files, bad=bad_files,
            games=_plural(games, "game", language), bad_games=bad_games,
        )
        if expanded.missing:
            summary += text("; {n} not found or not readable", language,
                            n=len(expanded.missing))
        if expanded.skipped:
            summary += text("; {n} skipped", language, n=len(expanded.skipped))
        console.print(summary)
    if bad_files or expanded.missing:
        raise typer.Exit(EXIT_MALFORMED)


def _generate_or_raise(path: Path) -> Iterator[Game]:
    from zhuoji.flows.audit.rulesets import ruleset_tiles
    from zhuoji.parsers.errors import MalformedLogError
    from zhuoji.parsers.read import generate_games

    for item in generate_games(path, tiles=ruleset_tiles):
        if isinstance(item, MalformedLogError):
            raise item
        yield item


def convert_command(
    source: Annotated[Path, typer.Argument(help="The log file to read.")],
    target: Annotated[
        Path,
        typer.Argument(help="The file to write; its name gives the encoding (.json, .jsonl, .gz)."),
    ],
    indent: Annotated[
        bool, typer.Option("--indent", help="Indent a document with two spaces.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace TARGET when it exists.")
    ] = False,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Convert a log between the document and stream encodings (losslessly).

    The target is written only when every game of the source parses; a document holds
    exactly one game. An existing TARGET is kept unless --force is given. Refused: the
    source itself, and anything that is not a regular file (a folder, a device, a named
    pipe). Errors go to stderr.

    Exit status: 0 when the target is written, 2 on any error.
    """
    language = use_lang(lang)
    use_json(json_output)
    from zhuoji.flows.cli.errors import message_of
    from zhuoji.parsers.errors import MalformedLogError
    from zhuoji.parsers.read import parse_encoding
    from zhuoji.parsers.write import write_games
    from zhuoji.rules.glossary import text
    from zhuoji.rules.messages import Message

    console = _console()

    def error(message: str) -> typer.Exit:
        return fail(message, EXIT_MALFORMED)

    if not source.exists():
        raise error(Message("{path:any}: no such file", str(source)))
    try:
        parse_encoding(source)
        encoding, gzipped = parse_encoding(target)
    except ValueError as exc:
        raise error(message_of(exc)) from None
    # Written under a temporary name that keeps the suffix (it sets the encoding), then
    # moved into place, so a failed conversion leaves no partial target behind.
    from zhuoji.flows.cli.outputs import output_target, write_whole

    def check() -> Path:
        return output_target(
            target, command="convert", option="TARGET",
            inputs=[("the log file", [source])], force=force,
        )

    written = check()
    try:
        count = write_whole(
            written, target,
            lambda partial, _f: write_games(partial, _generate_or_raise(source), indent=indent),
            check,
        )
    except (MalformedLogError, ValueError) as exc:
        raise error(message_of(exc)) from None
    except OSError as exc:
        raise error(describe_error(exc)) from None
    if json_output:
        print_json({
            "source": str(source),
            "target": str(target),
            "encoding": encoding.value,
            "gzip": gzipped,
            "games": count,
        })
        return
    console.print(text("wrote {games} to {path}", language,
                       games=_plural(count, "game", language), path=safe(target)), markup=False)
