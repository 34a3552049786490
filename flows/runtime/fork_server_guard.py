"""The fork server's first import (see :data:`zhuoji.flows.runtime.fork_server.WORKER_PRELOAD`): it
ties
the fork server's life to the process that started it
(:func:`zhuoji.flows.runtime.fork_server.die_with_parent`), deafens it and the workers it forks
to Ctrl-C, and keeps the numeric libraries the later preloads import from starting threads.

A Ctrl-C at a terminal sends ``SIGINT`` to the whole process group: the ingest, its fork
server and every worker. CPython's fork server ignores ``SIGINT`` only once its preloads
are imported (one arriving during those imports ends it with a traceback), and gives each
worker the handler it had before: ignoring it from here on, the fork server and its
workers leave the interrupt to the ingest process, which ends them
(:meth:`zhuoji.flows.runtime.pool.ForkServerTaskRunner.stop_workers`). A worker
interrupted mid-task sent ``KeyboardInterrupt`` back as its task's outcome, which killed
the pool's result thread in the ingest (Prefect's callback re-raises it), and the other
worker then waited for ever on a queue nobody read.

Nothing else imports it; in a process not started by
:func:`zhuoji.flows.runtime.fork_server.start_fork_server`
(no :data:`~zhuoji.flows.runtime.fork_server.PARENT_ENV` naming its parent) it only sets the thread
counts.
"""

from __future__ import annotations

import os
import signal

from zhuoji.flows.runtime.fork_server import PARENT_ENV, die_with_parent

# Forking is safe only from a process with one thread. ``prefect_dask`` imports
# ``distributed``, which imports numpy, whose OpenBLAS starts a pool of threads (one per
# core beyond the first) as it loads unless told otherwise. The workers forked from here
# inherit the setting; they run one task at a time and do no linear algebra.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

_parent = os.environ.get(PARENT_ENV, "")
if _parent.isdigit():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (kept by each worker it forks)
    die_with_parent(int(_parent))
