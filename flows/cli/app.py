"""The ``zhuoji`` command-line application object: the root and the options every command
shares; the commands live in the modules of ``flows/cli/`` and are put on it by
:func:`zhuoji.flows.cli.main.build_app`, in one list.

Every command module imports only Typer and the standard library when it is imported
(what ``zhuoji --help`` needs); a command imports the engine, DuckDB, Polars or Prefect
when it runs, and only what it uses.
"""

from __future__ import annotations

import platform
from typing import Annotated, Any

import typer

from zhuoji.flows.cli.errors import ZhuojiGroup, set_debug
from zhuoji.flows.cli.help import SpeaksHelp
from zhuoji.flows.cli.lang import LangOption, use_lang

ROOT_HELP = "Audit {families} mahjong game logs: parse, replay, settle, load into DuckDB."
"""The root's help: ``{families}`` the families by their words (``[family_label]`` of each
family's words file, :func:`zhuoji.rules.glossary.family_list`), as its Chinese in the
glossary's ``[help]`` has them."""


def root_help() -> str:
    """The root's help in English, naming the families the glossary has words of (read
    without importing the engine or the family registry)."""
    from zhuoji.rules.glossary import family_list

    return ROOT_HELP.replace("{families}", family_list("en"))


class RootGroup(SpeaksHelp, ZhuojiGroup):
    """The root command, whose help names the families by their words files: read when the
    help is printed, so that no family is named in the code; in the invocation's language
    (:mod:`zhuoji.flows.cli.help`)."""

    # Any: Click's or the copy recent Typer releases carry (typer._click), as in errors.py
    def get_help(self, ctx: Any) -> str:
        if self.help is None:
            self.help = root_help()
        return super().get_help(ctx)


app = typer.Typer(
    name="zhuoji",
    cls=RootGroup,
    epilog="Exit status: 0 done; 1 audit findings; 2 an error (usage, input, database, "
    "disk, service); 130 interrupted. NO_COLOR=1 turns colour off.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def engine_kind() -> str:
    """``compiled`` when the rules engine's modules are compiled extensions, else ``pure``."""
    from importlib.util import find_spec

    spec = find_spec("zhuoji.rules.table")
    origin = "" if spec is None or spec.origin is None else spec.origin
    return "compiled" if origin.endswith((".so", ".pyd")) else "pure"


def version_text() -> str:
    """``zhuoji 0.1.0 (engine: pure; Python 3.11.2, CPython)``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("zhuoji")
    except PackageNotFoundError:
        ours = "unknown"
    python = f"{platform.python_version()}, {platform.python_implementation()}"
    return f"zhuoji {ours} (engine: {engine_kind()}; Python {python})"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_show_version,
            help="Print the version, the engine kind (compiled or pure) and the Python, "
            "and exit.",
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", help="On an error, print the traceback too (also ZHUOJI_DEBUG=1)."
        ),
    ] = False,
    lang: LangOption = None,
) -> None:
    set_debug(debug)
    use_lang(lang, reset=True)
