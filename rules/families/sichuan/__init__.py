"""The Sichuan 四川麻将 family (seed 003, third game): 108 suited tiles, no chow, 定缺 with
换三张 before it where played, 刮风下雨 kong payments, 番 doubling up to a cap, 查花猪 and
查大叫 at the wall's end; the hand ends at the first win(s), or play goes on after a win
(血战到底, 血流成河) (``docs/rules/sichuan.md``).

It owns its settings model (:mod:`.settings`), its table rules (:mod:`.legality`), its
patterns (:mod:`.patterns`) and its settlement (:mod:`.settlement`); :mod:`.family`
registers it with :mod:`zhuoji.rules.families`.
"""

COMPILED = ("patterns", "legality", "settlement", "simulate")
"""The family's modules compiled with the engine (``rules/engine.py`` reads this line)."""
