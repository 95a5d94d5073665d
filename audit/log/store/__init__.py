"""The stored hand log: verified, batched, atomic appends to an RFC 6962 tree in SQL.

``open_log(url, origin, signer)`` opens (creating and migrating) a log in SQLite
(``sqlite:///path``, a plain path, or ``:memory:``) or PostgreSQL (``postgresql://...``;
an extra ``schema=NAME`` query parameter selects, and creates, a schema). Both use the
same schema (:mod:`audit.log.migrations`) and behave the same.

:class:`Log` is one class made of the parts in this package, one module each:

- :mod:`~audit.log.store.core`: the database, the writer lock, the stored tree's nodes;
- :mod:`~audit.log.store.actors`: actors' keys (which key may sign for whom);
- :mod:`~audit.log.store.appends`: verified, atomic appends and the hand chains;
- :mod:`~audit.log.store.reads`: size, root, leaves and events read back;
- :mod:`~audit.log.store.proofs`: inclusion and consistency proofs;
- :mod:`~audit.log.store.checkpoints`: signed checkpoints, issued, stored and checked;
- :mod:`~audit.log.store.serving`: proofs as JSON or tlog-proof text, with their checkpoint.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from audit.log.backends import NID_SHIFT, as_bytes, connect, migrate, nid
from audit.log.errors import LogError, StoreError
from audit.log.keys import Signer
from audit.log.store.appends import LogAppends
from audit.log.store.core import APPEND_ENV
from audit.log.store.serving import LogServing

__all__ = ["APPEND_ENV", "NID_SHIFT", "Log", "as_bytes", "nid", "open_log"]


class Log(LogAppends, LogServing):
    """One hand log (one origin) in one database. Thread-safe; use one per process."""


def open_log(
    url: str,
    origin: str | None = None,
    signer: Signer | None = None,
    *,
    require_registered_keys: bool = True,
    clock: Callable[[], float] = time.time,
    append_in_server: bool | None = None,
) -> Log:
    """Open (create, migrate) the log at ``url``; see the module docstring.

    ``append_in_server`` (PostgreSQL): sequence each batch in the database, in one
    statement (the default), or from this process; ``None`` reads
    ``FAIRPLAY_LOG_APPEND`` (``client`` for the latter).

    ``origin`` may be omitted to open an existing log under its stored origin.
    """
    if origin is not None and (not isinstance(origin, str) or not origin or "\n" in origin):
        raise StoreError("the log origin must be a non-empty single line")
    db = connect(url)
    try:
        migrate(db, clock())
        if origin is None:
            rows = db.query("SELECT value FROM log_meta WHERE name = 'origin'")
            if not rows:
                raise StoreError(f"no log at {url}: give its origin to create one")
            origin = str(rows[0][0])
    except LogError:
        db.close()
        raise
    except Exception as exc:
        db.close()
        raise StoreError(f"cannot migrate the log database: {exc}") from exc
    return Log(
        db,
        origin,
        signer,
        require_registered_keys=require_registered_keys,
        clock=clock,
        append_in_server=append_in_server,
    )
