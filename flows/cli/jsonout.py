"""``--json``: a command's result as one JSON document on standard output.

The commands that print data take ``--json`` (:data:`JsonOption`): what they would print
for a reader is then one JSON object on one line of standard output, and nothing else is
written there (no progress, no table); its keys are listed in ``docs/pipeline.md`` (the
command line), in a fixed order, lists sorted where their order means nothing. Errors
stay one line on standard error with the usual exit status, and a fatal error is also the
object ``{"error": {"message": ...}}`` on standard output
(:func:`zhuoji.flows.cli.errors.set_json_errors`), as for ``ingest --json``.

Importing this module costs nothing: orjson is imported when a document is written.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from zhuoji.flows.cli.errors import set_json_errors

__all__ = ["JSON_HELP", "JsonOption", "print_json", "use_json"]

JSON_HELP = "Print the result as one JSON object on standard output (keys: docs/pipeline.md)."

JsonOption = Annotated[bool, typer.Option("--json", help=JSON_HELP)]
"""The option (``json_output: JsonOption = False``)."""


def use_json(on: bool) -> bool:
    """Take the command's ``--json``: a fatal error is then a JSON object as well."""
    set_json_errors(on)
    return on


def _default(value: Any) -> Any:
    return str(value)


def print_json(document: dict[str, Any]) -> None:
    """Write ``document`` as one line of JSON to standard output, and flush (a command
    that goes on serving prints it once ready)."""
    import orjson

    sys.stdout.write(
        orjson.dumps(document, default=_default, option=orjson.OPT_NON_STR_KEYS).decode() + "\n"
    )
    sys.stdout.flush()
