"""One table of the system's refusals: the command line and the warehouse word a full disk,
a read-only file system, ... the same way."""

from __future__ import annotations

import errno
import os

import duckdb
import pytest

from zhuoji.flows.cli.errors import describe_error, environment_errno
from zhuoji.flows.text import oserrors
from zhuoji.flows.warehouse import store as warehouse


@pytest.mark.parametrize("code", sorted(oserrors.STORAGE_ERRNOS))
def test_the_command_line_and_the_warehouse_say_the_same(code: int) -> None:
    text = oserrors.os_error_text(code)
    assert text == oserrors.OS_ERROR_TEXT[code]
    stored = warehouse.DatabaseStorageError("w.duckdb", code, "detail")
    assert str(stored) == f"database w.duckdb: {text} (detail)"
    assert stored.errno == code
    assert describe_error(OSError(code, os.strerror(code), "w.duckdb")) == f"w.duckdb: {text}"
    # duckdb keeps only the system's text: both read the errno back from it.
    failed = duckdb.IOException(f'Could not write file "w.duckdb": {os.strerror(code)}')
    assert warehouse.storage_errno(failed) == code
    assert environment_errno(failed) == code
    assert describe_error(failed).startswith(f"{text}: ")


def test_an_errno_outside_the_table_gets_the_systems_text() -> None:
    assert errno.ENOMEM not in oserrors.OS_ERROR_TEXT
    assert oserrors.os_error_text(errno.ENOMEM) == os.strerror(errno.ENOMEM).lower()
    assert oserrors.errno_in_text("Cannot allocate memory") is None
    assert warehouse.storage_errno(OSError(errno.ENOENT, "gone")) is None
