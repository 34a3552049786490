"""Live rebuilds (``zhuoji serve``): a dashboard folder kept up to date with a warehouse."""

from __future__ import annotations

import threading
from pathlib import Path

from zhuoji.flows.dashboard.pages import DashboardLimits
from zhuoji.flows.dashboard.site import build_dashboard
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.rules.glossary import Lang

__all__ = [
    "LiveDashboard",
]

# --- live rebuilds (zhuoji serve) ------------------------------------------------------------


class LiveDashboard:
    """A dashboard folder kept up to date with a warehouse: :meth:`refresh` rebuilds it
    when the database file (or its write-ahead log) changed since the last build. While
    an ingest holds the file the last build is kept; with no build yet the error is raised."""

    def __init__(
        self,
        db: str | Path,
        folder: Path,
        limits: DashboardLimits | None = None,
        *,
        workers: int | None = None,
        lang: Lang = "en",
    ) -> None:
        self.lang: Lang = lang
        self.db = Path(db)
        self.folder = folder
        self.limits = limits or DashboardLimits()
        self.workers = workers
        self.builds = 0
        self._stamp: tuple[tuple[int, int], ...] | None = None
        self._lock = threading.Lock()

    def _current_stamp(self) -> tuple[tuple[int, int], ...]:
        stamp = []
        for path in (self.db, self.db.with_name(self.db.name + ".wal")):
            if path.exists():
                st = path.stat()
                stamp.append((st.st_mtime_ns, st.st_size))
            else:
                stamp.append((0, -1))
        return tuple(stamp)

    def refresh(self) -> bool:
        """Rebuild if the warehouse changed; True when a build was made."""
        with self._lock:
            stamp = self._current_stamp()
            if stamp == self._stamp:
                return False
            try:
                build_dashboard(
                    self.db, self.folder, self.limits, workers=self.workers, lang=self.lang
                )
            except warehouse.DatabaseBusyError:
                if self._stamp is None:
                    raise
                return False
            self._stamp = stamp
            self.builds += 1
            return True
