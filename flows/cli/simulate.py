"""``zhuoji simulate``: bot players play complete games; the logs are written to a folder."""

from __future__ import annotations

import time
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from zhuoji.flows.cli.jsonout import JsonOption, print_json, use_json
from zhuoji.flows.cli.lang import LangOption, use_lang
from zhuoji.flows.text.terminal import make_console

if TYPE_CHECKING:
    from zhuoji.flows.simulation.writer import FileOutcome


class EncodingChoice(StrEnum):
    """:class:`zhuoji.parsers.read.Encoding`'s values (a test keeps them equal), so that --help
    imports no parser."""

    DOCUMENT = "document"
    STREAM = "stream"

_PROGRESS_FROM = 2000  # hands: smaller runs print only the summary


def simulated_families() -> list[str]:
    """The families whose games the simulator plays: those that name their bots in the
    registry (``Family.extras["simulate"]``), the default family (``DEFAULT_FAMILY``) first."""
    from zhuoji.rules.bots import BOTS_EXTRA
    from zhuoji.rules.families import default_family, families

    names = [f.name for f in families() if isinstance(f.extras.get(BOTS_EXTRA), str)]
    first = default_family()
    return sorted(names, key=lambda name: (name != first, name))


def _rulesets(names: list[str]) -> tuple[str, ...]:
    from zhuoji.rules.messages import Message
    from zhuoji.rules.presets import family_of_preset, is_preset, preset_names

    played = simulated_families()
    out: list[str] = []
    for name in names:
        for part in name.split(","):
            part = part.strip()
            if part == "all":
                for family in played:
                    out.extend(preset_names(family))
            elif not is_preset(part):
                raise typer.BadParameter(
                    Message("unknown preset {p:any}; the presets are: {all:any}", repr(part),
                            ", ".join(preset_names())),
                    param_hint="--ruleset",
                )
            elif family_of_preset(part) not in played:
                raise typer.BadParameter(
                    Message("preset {p:any} is of the {f:any} family, which has no bots; the "
                            "simulator plays the families {all:any}", repr(part),
                            family_of_preset(part), ", ".join(played)),
                    param_hint="--ruleset",
                )
            else:
                out.append(part)
    return tuple(dict.fromkeys(out))


def simulate(
    out: Annotated[str, typer.Option("--out", help="folder to write the logs into")],
    games: Annotated[int, typer.Option("--games", min=1, help="games per preset")] = 10,
    ruleset: Annotated[
        list[str] | None,
        typer.Option("--ruleset", help="preset name; repeat, separate with commas, or 'all'"),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="seed of the run")] = 0,
    encoding: Annotated[
        EncodingChoice, typer.Option("--encoding", help="one file per game, or stream files")
    ] = EncodingChoice.DOCUMENT,
    faults: Annotated[
        float, typer.Option("--faults", min=0.0, max=1.0, help="fraction of hands faulted")
    ] = 0.0,
    hands_per_game: Annotated[
        int, typer.Option("--hands-per-game", min=1, help="hands in each game")
    ] = 8,
    games_per_file: Annotated[
        int, typer.Option("--games-per-file", min=1, help="games per stream file")
    ] = 50,
    gzipped: Annotated[bool, typer.Option("--gzip", help="gzip the log files")] = False,
    base_stake: Annotated[
        int, typer.Option("--base-stake", min=1, help="the stake every amount is a multiple of")
    ] = 1,
    workers: Annotated[int, typer.Option("--workers", min=1, help="worker processes")] = 1,
    file_damage: Annotated[
        bool,
        typer.Option("--file-damage/--no-file-damage",
                     help="with --faults: allow file-level damage (truncation, broken lines)"),
    ] = True,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Simulate complete games under one or more presets and write them as logs.

    Same seed, same bytes. With --faults, that fraction of hands carries one defect, listed
    in OUT/faults.jsonl with the finding the audit must report.
    """
    language = use_lang(lang)
    use_json(json_output)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table as RichTable

    from zhuoji.flows.simulation.writer import FAULTS_MANIFEST, SimulationRequest, run_simulation
    from zhuoji.parsers.read import Encoding

    console = make_console()
    request = SimulationRequest(
        rulesets=_rulesets(ruleset or ["guiyang"]),
        games=games,
        seed=seed,
        hands_per_game=hands_per_game,
        encoding=Encoding(encoding.value),
        gzip=gzipped,
        faults=faults,
        games_per_file=games_per_file,
        base_stake=base_stake,
        file_damage=file_damage,
    )
    from zhuoji.rules.glossary import text

    started = time.perf_counter()
    with Progress(
        TextColumn(f"[bold]{text('simulate', language)}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(text("hands", language)),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=json_output or request.hands < _PROGRESS_FROM,
    ) as progress:
        task = progress.add_task("hands", total=request.hands, rate="")
        written: list[str] = []

        def advance(outcome: FileOutcome) -> None:
            written.append(outcome.name)
            done = progress.tasks[task].completed + outcome.hands
            rate = done / max(time.perf_counter() - started, 1e-9)
            progress.update(task, completed=done,
                            rate=text("{rate} hands/s", language, rate=f"{rate:,.0f}"))

        summary = run_simulation(request, out, workers=workers, on_file=advance)
    elapsed = time.perf_counter() - started
    if json_output:
        print_json({
            "out": out,
            "presets": list(request.rulesets),
            "seed": seed,
            "encoding": encoding.value,
            "gzip": gzipped,
            "files": summary.files,
            "games": summary.games,
            "hands": summary.hands,
            "written": sorted(written),
            "faults": len(summary.faults),
            "faults_manifest": FAULTS_MANIFEST if faults > 0 else None,
            "faults_by_kind": dict(sorted(summary.by_kind.items())),
        })
        return

    def t(english: str, **fields: object) -> str:
        return text(english, language, **fields)

    table = RichTable(title=t("simulated into {out}", out=out), show_header=False)
    table.add_row(t("presets"), ", ".join(request.rulesets))
    table.add_row(t("encoding"), encoding.value + (t(" (gzip)") if gzipped else ""))
    table.add_row(t("files"), str(summary.files))
    table.add_row(t("games"), str(summary.games))
    table.add_row(t("hands"), str(summary.hands))
    table.add_row(t("time"), t("{seconds} s ({rate} hands/s)", seconds=f"{elapsed:.1f}",
                               rate=f"{summary.hands / max(elapsed, 1e-9):,.0f}"))
    if faults > 0:
        kinds = ", ".join(f"{k} {n}" for k, n in summary.by_kind.items()) or t("none")
        table.add_row(t("faults"), t("{n} in {file}: {kinds}", n=len(summary.faults),
                                     file=FAULTS_MANIFEST, kinds=kinds))
    console.print(table)
