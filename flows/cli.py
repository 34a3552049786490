"""Entry point of the ``zhuoji`` console script: imports every command module."""

from __future__ import annotations

# Each module registers its commands on ``app`` when imported.
from flows import (
    cli_audit,  # noqa: F401  (audit)
    cli_dashboard,  # noqa: F401  (dashboard, serve)
    cli_deploy,  # noqa: F401  (deploy)
    cli_ingest,  # noqa: F401  (ingest)
    cli_parse,  # noqa: F401  (schema, convert, validate)
    cli_report,  # noqa: F401  (report, sql)
    cli_rules,  # noqa: F401  (rules list, show, diff, matrix)
    cli_server,  # noqa: F401  (server status, stop)
    cli_simulate,  # noqa: F401  (simulate)
)
from flows.app import app


def main() -> None:
    app()


if __name__ == "__main__":
    main()
