"""The Guizhou 捉鸡 family: 108 suited tiles (and the 暗麻将 wildcards), no chow, the hand
ends at the first win; chickens 鸡, kongs 豆, 报听 and 翻鸡 (``docs/rules/README.md``).

It owns its settings model (:mod:`.settings`), its patterns (:mod:`.patterns`) and its
settlement (:mod:`.settlement`); :mod:`.family` registers it with :mod:`zhuoji.rules.families`.
"""

COMPILED = ("patterns", "legality", "settlement", "simulate")
"""The family's modules compiled with the engine (``rules/engine.py`` reads this line)."""
