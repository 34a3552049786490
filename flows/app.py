"""The ``zhuoji`` command-line application object; commands live in ``flows/cli_*.py``."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="zhuoji",
    help="Audit Guizhou 捉鸡 mahjong game logs: parse, replay, settle, load into DuckDB.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
