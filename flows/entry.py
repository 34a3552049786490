"""The ``zhuoji`` console script's entry point, which imports the commands only when run.

A spawned worker process (Prefect's own process pool, where there is no fork server:
see :mod:`flows.pool`) runs the parent's main script again (as ``__mp_main__``) before
it takes a task. With the script importing :mod:`flows.cli`, every such worker paid for
every command module (Typer, Rich, the dashboard ...) that it never uses; importing this
module costs nothing.
"""

from __future__ import annotations


def main() -> None:
    from flows.cli import main as run_cli

    run_cli()
