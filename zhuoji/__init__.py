"""zhuoji: an auditing pipeline for mahjong game logs.

The package holds three subpackages, each a folder at the top of the repository:
:mod:`zhuoji.rules` (the rules engine), :mod:`zhuoji.parsers` (reading and writing logs)
and :mod:`zhuoji.flows` (the command line, the audit, the ingest into the DuckDB warehouse,
the dashboard). ``docs/architecture.md`` draws the layout.
"""
