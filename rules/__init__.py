"""The rules engine. Importing the package chooses the engine (:mod:`rules.engine`)."""

from rules.engine import select as _select

_select()
