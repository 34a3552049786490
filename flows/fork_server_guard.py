"""The fork server's first import (see :data:`flows.fork_server.WORKER_PRELOAD`): it ties
the fork server's life to the process that started it (:func:`flows.fork_server.die_with_parent`).

Nothing else imports it; in a process not started by :func:`flows.fork_server.start_fork_server`
(no :data:`~flows.fork_server.PARENT_ENV` naming its parent) importing it does nothing.
"""

from __future__ import annotations

import os

from flows.fork_server import PARENT_ENV, die_with_parent

_parent = os.environ.get(PARENT_ENV, "")
if _parent.isdigit():
    die_with_parent(int(_parent))
