"""The engine's core: the table of one hand, its rules and its optional mechanics (see
:mod:`zhuoji.rules.table`, which re-exports what the rest of the engine reads)."""
