"""The benches' one bootstrap: ``import _checkout`` first, and a bench run as
``python bench/NAME.py`` imports from this checkout.

Run that way, a script's own folder (``bench/``) heads ``sys.path``, not the checkout's
root; this module puts the root first, so that ``tests.support`` (the hand builders, the
random-hand generator, the log mutator and its worker target, the parsing corpus),
``bench.NAME`` and ``zhuoji`` itself come from the checkout the bench belongs to. ``ROOT``
is that root.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
