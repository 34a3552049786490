"""``zhuoji audit``: replay and settle every hand of log files and check the records.

The engine and the human view (:mod:`zhuoji.flows.cli.audit_text`) are imported when the command
runs, not when ``zhuoji --help`` lists it.
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zhuoji.flows.cli.errors import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    describe_error,
    error_line,
    fail,
    is_debug,
    set_json_errors,
)
from zhuoji.flows.cli.lang import LangOption, use_lang
from zhuoji.flows.text.terminal import safe

if TYPE_CHECKING:
    from zhuoji.rules.glossary import Lang


def audit_command(
    paths: Annotated[
        list[str], typer.Argument(help="Log files, folders (searched recursively) or globs.")
    ],
    json_lines: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per hand, one per line.")
    ] = False,
    hand_no: Annotated[
        int | None,
        typer.Option("--hand", help="Only hand N, shown in full (tiles, chickens, explanation)."),
    ] = None,
    game_id: Annotated[
        str | None, typer.Option("--game", help="Only the game with this id.")
    ] = None,
    html: Annotated[
        str | None,
        typer.Option(
            "--html",
            metavar="OUT.html",
            help="With one FILE and --hand N (and --game ID when the file holds several "
            "games): write that hand's audit page, with its step-by-step replay, to "
            "OUT.html, self-contained, to send to the players. An existing OUT.html is "
            "kept unless --force is given; the log itself, a folder, a device or a named "
            "pipe is refused.",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="With --html: replace OUT.html when it exists."),
    ] = False,
    lang: LangOption = None,
) -> None:
    """Replay and settle every hand; compare each with its recorded result.

    Per hand: the outcome, the winning hands and their value, the ledger grouped by
    reason, the recomputed and recorded deltas, and every finding (illegal moves,
    not_zero_sum, score_mismatch, item_mismatch, item_sum_mismatch, dealer_mismatch).
    Names, ids and paths from the logs are printed with their control characters escaped
    (\\x1b, \\u202e).

    With --json: one object per hand per line with file, game_id, hand_no, ruleset,
    violations, winners, next_dealer, deltas (null when the replay stopped on a fatal
    violation), recorded_deltas and ledger; a hand of a family that scores chickens also
    has flip, chickens and each winner's penalty, a hand of a family with dice, the last
    tile's offer or birds has wall, a hand with 起手小胡 declared small_wins. A file that
    is malformed, missing or cannot be read gives one line {"file": ..., "error": {...}};
    any other error one line {"error": {...}}. No traceback, whatever happens.

    Exit status: 0 when every hand is clean, 1 when any hand has a finding, 2 when a file
    is malformed, missing or unreadable or a game's ruleset is unknown. A missing file is
    reported on stderr; malformed games are part of the report (stdout).
    """
    language = use_lang(lang)
    set_json_errors(json_lines)
    if html is not None:
        _hand_report(paths, hand_no, game_id, html, json_lines=json_lines, lang=language,
                     force=force)
        return
    from zhuoji.flows.audit.files import (
        FileFault,
        fault_json,
        format_json_line,
        game_error_json,
        generate_file_audits,
        hand_json,
    )
    from zhuoji.flows.cli.audit_text import format_hand
    from zhuoji.flows.cli.parse import check_limits, expand_paths
    from zhuoji.flows.text.messages import malformed_text
    from zhuoji.rules.glossary import render, text
    from zhuoji.rules.messages import Message

    check_limits()
    expanded = expand_paths(paths)
    malformed = bool(expanded.missing)
    findings = False
    hands_seen = games = clean = 0
    out = sys.stdout

    def emit(line: str) -> None:
        out.write(line + "\n")

    def emit_json(obj: dict[str, Any]) -> None:
        out.write(format_json_line(obj) + "\n")

    for missing in expanded.missing:
        why = expanded.why(missing)
        if json_lines:
            emit_json({"file": missing, "error": {"message": why}})
        else:
            sys.stderr.write(error_line(Message("{path:any}: {reason:said}", missing, why)) + "\n")
    for skip in expanded.skipped:
        if json_lines:
            emit_json({"file": str(skip.path), "skipped": skip.reason})
        else:
            emit(text("skipped: {path}: {reason}", language, path=safe(skip.path),
                      reason=safe(skip.reason)))
    for path in expanded.files:
        try:
            for item in generate_file_audits(path, game_id=game_id, hand_no=hand_no):
                if isinstance(item, FileFault):
                    malformed = True
                    if json_lines:
                        emit_json(fault_json(item))
                    else:
                        emit(text("error: malformed: {error}", language,
                                  error=safe(malformed_text(item.error, language))))
                    continue
                games += 1
                if item.error is not None:
                    malformed = True
                    if json_lines:
                        emit_json(game_error_json(item))
                    else:
                        emit(safe(render(Message("error: {path:any}, game {g:any}: {why:said}",
                                                 item.path, repr(item.game.game_id),
                                                 item.error), language)))
                    continue
                for hand in item.hands:
                    hands_seen += 1
                    findings = findings or bool(hand.findings)
                    clean += hand.is_clean
                    if json_lines:
                        emit_json(hand_json(item, hand, language))
                    else:
                        for line in format_hand(item, hand, full=hand_no is not None,
                                                lang=language):
                            emit(safe(line))
                        emit("")
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception as exc:  # one file's fault never costs the others
            malformed = True
            if is_debug():
                traceback.print_exception(exc, file=sys.stderr)
            message = describe_error(exc)
            if json_lines:
                emit_json({"file": str(path), "error": {"message": message}})
            else:
                emit(text("error: {path}: {message}", language, path=safe(path),
                          message=safe(render(message, language))))
    if hand_no is not None and not hands_seen and not malformed:
        if json_lines:
            emit_json({"error": {"message": f"no hand {hand_no} found"}})
        else:
            sys.stderr.write(error_line(Message("no hand {n:n} found", hand_no)) + "\n")
        raise typer.Exit(EXIT_ERROR)
    if not json_lines:
        emit(text("{files} file(s), {games} game(s), {hands} hand(s): {clean} clean, "
                  "{findings} with findings", language, files=len(expanded.files),
                  games=games, hands=hands_seen, clean=clean, findings=hands_seen - clean))
    if malformed:
        raise typer.Exit(EXIT_ERROR)
    if findings:
        raise typer.Exit(EXIT_FINDINGS)


def _hand_report(
    paths: list[str],
    hand_no: int | None,
    game_id: str | None,
    out: str,
    *,
    json_lines: bool,
    lang: Lang = "en",
    force: bool = False,
) -> None:
    """``audit FILE --hand N --html OUT``: write the page; exit 1 when the hand has a
    finding, as the audit does."""
    from zhuoji.flows.cli.parse import check_limits
    from zhuoji.rules.messages import Message

    if json_lines:
        raise typer.BadParameter(Message("--html writes a page; it does not go with --json"))
    if hand_no is None:
        raise typer.BadParameter(Message("--html needs --hand N: the hand whose page to write"))
    if len(paths) != 1:
        raise typer.BadParameter(Message("--html takes one log file, not {n:n} paths",
                                         len(paths)))
    from zhuoji.flows.dashboard.render import DashboardError

    check_limits()
    try:
        summary = write_hand_report(paths[0], hand_no, out, game_id=game_id, lang=lang,
                                    force=force)
    except (DashboardError, FileNotFoundError) as exc:
        raise fail(exc) from None
    from zhuoji.rules.glossary import text

    how = text(", with findings" if summary.findings else ", clean", lang)
    sys.stdout.write(text(
        "wrote {out} ({bytes} bytes): game {game}, hand {hand}{how}", lang,
        out=safe(summary.out), bytes=f"{summary.bytes:,}", game=safe(summary.game_id),
        hand=summary.hand_no, how=how,
    ) + "\n")
    if summary.findings:
        raise typer.Exit(EXIT_FINDINGS)


@dataclass(frozen=True, slots=True)
class HandReportSummary:
    out: Path
    game_id: str
    hand_no: int
    bytes: int
    findings: bool  # the hand has an illegal move or a settlement finding


def write_hand_report(
    path: str | Path,
    hand_no: int,
    out: str | Path,
    *,
    game_id: str | None = None,
    lang: Lang = "en",
    force: bool = False,
) -> HandReportSummary:
    """Audit ``path`` and write the page of one of its hands to ``out``, in ``lang``
    (:func:`zhuoji.flows.dashboard.hand_report.render_hand_report`).

    ``out`` is refused at once (:func:`zhuoji.flows.cli.outputs.output_target`, before the
    audit) when it is the log itself, anything but a regular file or a new path, or an
    existing file without ``force``; its folder is created when missing. The page is
    written whole or not at all (:func:`zhuoji.flows.cli.outputs.write_whole`)."""
    from zhuoji.flows.cli.outputs import output_target, write_whole
    from zhuoji.flows.dashboard.hand_report import render_hand_report

    given = Path(out)

    def check() -> Path:
        return output_target(
            given, command="audit --html", option="--html",
            inputs=[("the log file", [Path(path)])], force=force, make_folder=True,
        )

    target = check()
    page = render_hand_report(path, hand_no, game_id=game_id, lang=lang)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_whole(target, given, lambda _partial, f: f.write(page.data), check)
    return HandReportSummary(given, page.game_id, page.hand_no, len(page.data), page.findings)
