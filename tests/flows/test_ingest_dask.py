"""The flow on a Dask cluster gives the database the local process pool gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.ingest import run_ingest
from tests.flows.conftest import Corpus, snapshot


@pytest.mark.xdist_group("prefect")
def test_a_dask_cluster_gives_the_same_database(
    corpus: Corpus, clean_db: Path, prefect_harness: str, tmp_path: Path
) -> None:
    from distributed import LocalCluster

    db = tmp_path / "dask.duckdb"
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        summary = run_ingest([str(corpus.root)], db, dask_address=cluster.scheduler_address)
    assert summary.workers == 2
    assert summary.runner == f"dask {cluster.scheduler_address}"
    assert summary.files_loaded == len(corpus.games)
    assert snapshot(db) == snapshot(clean_db)
