"""The 平胡 (pinghu) test family: a rule family kept outside zhuoji's package, which plugs
in from this folder alone (``ZHUOJI_FAMILIES=<this folder>``, or an entry point of the
group ``zhuoji.families`` naming :mod:`.family`) and goes through the whole pipeline:
``zhuoji simulate``, ``zhuoji audit``, ``zhuoji ingest``, the reports and the dashboard
(``tests/flows/test_plugin_family.py``).

The family plays the 108 suited tiles with pong and kong, several winners on one discard
and robbing a kong; a win is paid by the discarder (or, self-drawn, by every other seat)
the sum of its patterns' points (:mod:`.patterns`, :mod:`.settlement`). Its folder holds
its settings model (:mod:`.settings`), its table rules (:mod:`.legality`), its patterns,
its settlement, its marks on the replay panel (:mod:`.panel`), its registration
(:mod:`.family`), its presets (``presets/*.toml``), its words in both languages
(``glossary.toml``) and its bots (:mod:`.simulate`, for ``zhuoji simulate``).
Nothing here imports a module of another family.
"""
