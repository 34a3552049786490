"""Entry point of the ``zhuoji`` console script: imports every command module."""

from __future__ import annotations

# Each module registers its commands on ``app`` when imported.
from zhuoji.flows.cli import (
    audit,  # noqa: F401  (audit)
    dashboard,  # noqa: F401  (dashboard, serve)
    deploy,  # noqa: F401  (deploy)
    ingest,  # noqa: F401  (ingest)
    parse,  # noqa: F401  (schema, convert, validate)
    report,  # noqa: F401  (report, sql)
    rules,  # noqa: F401  (rules list, show, diff, matrix)
    server,  # noqa: F401  (server status, stop)
    simulate,  # noqa: F401  (simulate)
)
from zhuoji.flows.cli.app import app


def main() -> None:
    app()


if __name__ == "__main__":
    main()
