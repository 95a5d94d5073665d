"""The data folder and its files are the owner's only: 0700 and 0600.

The SQLite database holds every live hand's deal and the server's seeds, the log key
signs the log, the admin token opens administration: none may be readable by another
user of the machine, whatever the umask.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from api import create_app
from audit.cli.serve import _admin_token
from tests.api.conftest import ADMIN
from tests.api.helpers import open_table


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def lax_umask() -> Iterator[None]:
    """The common default umask (022), under which new files are world-readable."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_fresh_data_folder_and_its_files_are_owner_only(tmp_path: Path, lax_umask: None) -> None:
    data = tmp_path / "srv" / "data"
    app = create_app({"data_dir": str(data), "admin_token": ADMIN, "testing": True})
    try:
        # Migrated and open: the database is in WAL mode with its -wal and -shm files.
        assert app.test_client().get("/healthz").status_code == 200
        assert mode(data) == 0o700
        files = ["fairplay.db", "fairplay.db-wal", "fairplay.db-shm", "log-key"]
        for name in files:
            assert (data / name).exists(), name
            assert mode(data / name) == 0o600, (name, oct(mode(data / name)))
    finally:
        app.extensions["fairplay"].close()
    token_dir = tmp_path / "other"
    assert _admin_token(str(token_dir))
    assert mode(token_dir) == 0o700
    assert mode(token_dir / "admin-token") == 0o600


def test_files_made_world_readable_by_an_older_version_are_tightened(
    tmp_path: Path, lax_umask: None
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "fairplay.db"
    db.touch()
    os.chmod(db, 0o644)
    app = create_app({"data_dir": str(data), "admin_token": ADMIN, "testing": True})
    try:
        assert mode(db) == 0o600
        assert mode(data / "fairplay.db-wal") == 0o600
    finally:
        app.extensions["fairplay"].close()


def test_the_service_still_works_with_private_files(make_service: object, lax_umask: None) -> None:
    svc = make_service()  # type: ignore[operator]
    table = open_table(svc.client(), svc.origin)
    assert table.hand()["phase"] == "committing"


def test_hosts_started_together_read_one_whole_log_key(tmp_path: Path) -> None:
    """Two hosts of a service started at once on one data folder both create the log key:
    the one that lost the race read the file the other had created but not yet written
    ('signer key must start with PRIVATE+KEY+', the host exited). The key appears whole or
    not at all, and every process reads the same key."""
    import threading

    from api.hand_log import load_or_create_signer

    for attempt in range(30):
        path = tmp_path / f"k{attempt}" / "log-key"
        gate = threading.Barrier(8)
        keys: list[str] = []
        errors: list[BaseException] = []

        def start(
            gate: threading.Barrier = gate,
            path: Path = path,
            keys: list[str] = keys,
            errors: list[BaseException] = errors,
        ) -> None:
            gate.wait()
            try:
                keys.append(load_or_create_signer(path, "race.test").verifier_key())
            except BaseException as exc:  # noqa: BLE001 - the failure under test
                errors.append(exc)

        threads = [threading.Thread(target=start) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[0]
        assert len(keys) == 8 and len(set(keys)) == 1
        assert [p.name for p in path.parent.iterdir()] == ["log-key"]  # no file left behind
        assert path.stat().st_mode & 0o777 == 0o600
