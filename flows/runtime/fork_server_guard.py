"""The fork server's first import (see :data:`zhuoji.flows.runtime.fork_server.WORKER_PRELOAD`): it
ties
the fork server's life to the process that started it
(:func:`zhuoji.flows.runtime.fork_server.die_with_parent`),
and keeps the numeric libraries the later preloads import from starting threads.

Nothing else imports it; in a process not started by
:func:`zhuoji.flows.runtime.fork_server.start_fork_server`
(no :data:`~zhuoji.flows.runtime.fork_server.PARENT_ENV` naming its parent) it only sets the thread
counts.
"""

from __future__ import annotations

import os

from zhuoji.flows.runtime.fork_server import PARENT_ENV, die_with_parent

# Forking is safe only from a process with one thread. ``prefect_dask`` imports
# ``distributed``, which imports numpy, whose OpenBLAS starts a pool of threads (one per
# core beyond the first) as it loads unless told otherwise. The workers forked from here
# inherit the setting; they run one task at a time and do no linear algebra.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

_parent = os.environ.get(PARENT_ENV, "")
if _parent.isdigit():
    die_with_parent(int(_parent))
