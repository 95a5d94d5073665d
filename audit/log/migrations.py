"""Versioned schema of the hand log, the same for SQLite and PostgreSQL.

Every table is prefixed ``log_`` so the log can share a database with the service. Each
migration runs once, in a transaction, and is recorded in ``log_schema_version``
(by the one runner, :mod:`audit.log.migrator`). The
database itself refuses UPDATE and DELETE (and, on PostgreSQL, TRUNCATE) on every log
table, so the log is append-only even for code that bypasses this package.

Tables (version 1):

``log_meta(name, value)``
    ``origin`` and ``verifier_key`` of the log, written once.
``log_entries(idx, table_id, hand_id, seq, actor, type, event_hash, leaf)``
    One row per event; ``leaf`` is the canonical JSON of the signed event (the Merkle
    leaf input), ``idx`` is dense from 0, ``(table_id, hand_id, seq)`` is unique.
``log_nodes(nid, hash)``
    Every complete subtree hash: ``nid = level << 48 | idx`` for the subtree covering
    leaves ``[idx << level, (idx + 1) << level)``. About two rows per entry.
``log_checkpoints(size, root, note, issued_at)``
    The signed checkpoints issued, one per tree size.
``log_actor_keys(actor, key_text, registered_at)``
    The verifier keys allowed to sign events of each actor.

Version 2 (PostgreSQL only; recorded, with no statement, on SQLite):

``log_append_batch(tables, hands, seqs, prevs, actors, types, hashes, leaves)``
    The sequencer: one call appends a batch of already verified events. It takes the
    writer lock, checks each hand's chain (``seq`` and ``prev`` against the hand's last
    event, or the batch's own earlier one), gives the entries the next indexes, inserts
    them and the new complete-subtree hashes (RFC 6962, computed with ``sha256``), and
    returns the first index. Called as one autocommitted statement, it holds the lock
    for the server's own work and the commit, never across a client round trip. A
    broken chain raises SQLSTATE ``FPSEQ`` (wrong ``seq``) or ``FPPRV`` (wrong
    ``prev``) with ``DETAIL`` ``"<offset in the batch> <the expected seq>"``, and a
    missing tree node ``FPTRE``; the whole batch is then rolled back.
"""

from __future__ import annotations

from audit.log.migrator import Migration, VersionTable

__all__ = ["LATEST_VERSION", "MIGRATIONS", "SCHEMA_VERSION_TABLE", "TABLES", "version_table"]

TABLES = ("log_meta", "log_entries", "log_nodes", "log_checkpoints", "log_actor_keys")


def _sqlite_guards(table: str) -> tuple[str, ...]:
    return tuple(
        f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, 'the hand log is append-only: {op} on {table} refused'); END"
        for op in ("UPDATE", "DELETE")
    )


def _pg_guards(table: str) -> tuple[str, ...]:
    return (
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION log_refuse_change()",
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION log_refuse_change()",
    )


_V1_TABLES = (
    "CREATE TABLE log_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE log_entries ("
    " idx {int} PRIMARY KEY CHECK (idx >= 0),"
    " table_id TEXT NOT NULL, hand_id TEXT NOT NULL, seq BIGINT NOT NULL CHECK (seq >= 0),"
    " actor TEXT NOT NULL, type TEXT NOT NULL, event_hash TEXT NOT NULL,"
    " leaf {blob} NOT NULL,"
    " UNIQUE (table_id, hand_id, seq))",
    "CREATE TABLE log_nodes (nid {int} PRIMARY KEY, hash {blob} NOT NULL)",
    "CREATE TABLE log_checkpoints (size BIGINT PRIMARY KEY, root {blob} NOT NULL,"
    " note TEXT NOT NULL, issued_at DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE log_actor_keys (actor TEXT NOT NULL, key_text TEXT NOT NULL,"
    " registered_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (actor, key_text))",
)

_PG_FUNCTION = (
    "CREATE OR REPLACE FUNCTION log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN RAISE EXCEPTION 'the hand log is append-only: % on % refused', TG_OP, TG_TABLE_NAME; "
    "END $$"
)

# The same steps as the Python append (audit.log.store.appends.LogAppends._append_here) and
# audit.log.merkle.Frontier.append: a new leaf at index i is stored at level 0, then
# merged with its left neighbour once per trailing 1 bit of i.
_PG_APPEND = (
    "CREATE OR REPLACE FUNCTION log_append_batch("
    " p_table TEXT[], p_hand TEXT[], p_seq BIGINT[], p_prev TEXT[], p_actor TEXT[],"
    " p_type TEXT[], p_hash TEXT[], p_leaf BYTEA[]) RETURNS BIGINT"
    " LANGUAGE plpgsql SET search_path FROM CURRENT AS $$\n"
    "DECLARE\n"
    "  v_base BIGINT; v_idx BIGINT; v_lvl INT; v_h BYTEA; v_left BYTEA;\n"
    "  v_seq BIGINT; v_hash TEXT;\n"
    "BEGIN\n"
    "  LOCK TABLE log_entries IN SHARE ROW EXCLUSIVE MODE;\n"
    "  SELECT COALESCE(MAX(e.idx) + 1, 0) INTO v_base FROM log_entries e;\n"
    "  FOR i IN 1 .. COALESCE(array_length(p_leaf, 1), 0) LOOP\n"
    "    SELECT e.seq, e.event_hash INTO v_seq, v_hash FROM log_entries e\n"
    "      WHERE e.table_id = p_table[i] AND e.hand_id = p_hand[i]\n"
    "      ORDER BY e.seq DESC LIMIT 1;\n"
    "    IF NOT FOUND THEN v_seq := -1; v_hash := NULL; END IF;\n"
    "    IF p_seq[i] <> v_seq + 1 THEN\n"
    "      RAISE EXCEPTION USING ERRCODE = 'FPSEQ', MESSAGE = 'the hand log: wrong seq',\n"
    "        DETAIL = (i - 1) || ' ' || (v_seq + 1);\n"
    "    END IF;\n"
    "    IF p_prev[i] IS DISTINCT FROM v_hash THEN\n"
    "      RAISE EXCEPTION USING ERRCODE = 'FPPRV', MESSAGE = 'the hand log: wrong prev',\n"
    "        DETAIL = (i - 1) || ' ' || (v_seq + 1);\n"
    "    END IF;\n"
    "    v_idx := v_base + i - 1;\n"
    "    INSERT INTO log_entries (idx, table_id, hand_id, seq, actor, type, event_hash, leaf)\n"
    "      VALUES (v_idx, p_table[i], p_hand[i], p_seq[i], p_actor[i], p_type[i], p_hash[i],\n"
    "              p_leaf[i]);\n"
    "    v_h := sha256(decode('00', 'hex') || p_leaf[i]);\n"
    "    INSERT INTO log_nodes (nid, hash) VALUES (v_idx, v_h);\n"
    "    v_lvl := 0;\n"
    "    WHILE (v_idx >> v_lvl) & 1 = 1 LOOP\n"
    "      SELECT n.hash INTO v_left FROM log_nodes n\n"
    "        WHERE n.nid = (v_lvl::BIGINT << 48) | ((v_idx >> v_lvl) - 1);\n"
    "      IF NOT FOUND THEN\n"
    "        RAISE EXCEPTION USING ERRCODE = 'FPTRE', MESSAGE = format(\n"
    "          'stored tree is missing node level %s index %s', v_lvl, (v_idx >> v_lvl) - 1);\n"
    "      END IF;\n"
    "      v_h := sha256(decode('01', 'hex') || v_left || v_h);\n"
    "      v_lvl := v_lvl + 1;\n"
    "      INSERT INTO log_nodes (nid, hash)\n"
    "        VALUES ((v_lvl::BIGINT << 48) | (v_idx >> v_lvl), v_h);\n"
    "    END LOOP;\n"
    "  END LOOP;\n"
    "  RETURN v_base;\n"
    "END $$"
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "log tables, append-only triggers",
        sqlite=tuple(s.replace("{blob}", "BLOB").replace("{int}", "INTEGER") for s in _V1_TABLES)
        + tuple(g for t in (*TABLES, "log_schema_version") for g in _sqlite_guards(t)),
        postgres=tuple(s.replace("{blob}", "BYTEA").replace("{int}", "BIGINT") for s in _V1_TABLES)
        + (_PG_FUNCTION,)
        + tuple(g for t in (*TABLES, "log_schema_version") for g in _pg_guards(t)),
    ),
    Migration(
        2,
        "PostgreSQL: the batch sequencer log_append_batch (one statement per batch)",
        sqlite=(),
        postgres=(_PG_APPEND,),
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version

SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS log_schema_version (version INTEGER PRIMARY KEY,"
    " description TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)"
)


def version_table(now: float) -> VersionTable:
    """``log_schema_version`` for :func:`audit.log.migrator.run`, stamped ``now``.

    PostgreSQL: the advisory lock is keyed by the schema, so logs in different schemas
    of one database migrate independently.
    """
    return VersionTable(
        name="log_schema_version",
        create=SCHEMA_VERSION_TABLE,
        insert="INSERT INTO log_schema_version (version, description, applied_at) VALUES (?, ?, ?)",
        stamp=lambda: now,
        pg_lock=("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.log'))", ()),
    )
