"""The Changsha 长沙麻将 family (seed 003, second game): 108 suited tiles, chow by the
discarder's next player, 2-5-8 pairs for 小胡, 起手小胡 on the dealt hand, 开杠 dice, 海底漫游
and 扎鸟 (``docs/rules/changsha.md``).

It owns its settings model (:mod:`.settings`), its table rules (:mod:`.legality`), its
patterns (:mod:`.patterns`) and its settlement (:mod:`.settlement`); :mod:`.family`
registers it with :mod:`zhuoji.rules.families`.
"""
