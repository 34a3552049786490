"""The rules engine. Importing the package chooses the engine (:mod:`zhuoji.rules.engine`)."""

from zhuoji.rules.engine import select as _select

_select()
