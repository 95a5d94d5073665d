"""Versioned schema migrations for the service's tables (all named ``api_*``).

Each migration is a version number, a name and its statements, written in the SQL that
SQLite and PostgreSQL share. :func:`migrate` hands them to the one runner,
:func:`audit.log.migrator.run`, which applies the missing ones in order inside one
transaction that holds a lock (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on
PostgreSQL), so several workers or hosts starting together apply each exactly once, and
records each in ``api_schema_migrations``. The log's own tables (``log_*``) have their
own list and version table (:mod:`audit.log.migrations`); both live in one database.
"""

from __future__ import annotations

from datetime import UTC, datetime

from api.database import Connection, Database
from audit.log.migrator import Migration, VersionTable, run

__all__ = ["LATEST", "MIGRATIONS", "VERSION_TABLE", "current_version", "migrate"]

MIGRATIONS: tuple[Migration, ...] = (
    Migration.portable(
        1,
        "players, tables, hands, reports",
        (
            """CREATE TABLE api_players (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                public_key TEXT NOT NULL UNIQUE,
                created_at TEXT NOT NULL)""",
            """CREATE TABLE api_tables (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                ruleset TEXT NOT NULL,
                seat_n TEXT NOT NULL REFERENCES api_players(id),
                seat_e TEXT NOT NULL REFERENCES api_players(id),
                seat_s TEXT NOT NULL REFERENCES api_players(id),
                seat_w TEXT NOT NULL REFERENCES api_players(id),
                first_dealer TEXT NOT NULL,
                hand_count INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL)""",
            """CREATE TABLE api_hands (
                table_id TEXT NOT NULL REFERENCES api_tables(id),
                number INTEGER NOT NULL,
                phase TEXT NOT NULL,
                dealer TEXT NOT NULL,
                pack INTEGER NOT NULL,
                server_seed TEXT NOT NULL,
                server_commitment TEXT NOT NULL,
                ceremony TEXT NOT NULL,
                event_count INTEGER NOT NULL DEFAULT 0,
                last_hash TEXT NOT NULL,
                start_score TEXT NOT NULL,
                end_score TEXT,
                record TEXT,
                report_id TEXT,
                started_at TEXT NOT NULL,
                finished_at TEXT,
                PRIMARY KEY (table_id, number))""",
            """CREATE TABLE api_reports (
                id TEXT PRIMARY KEY,
                table_id TEXT,
                hand_number INTEGER,
                verdict TEXT NOT NULL,
                created_at TEXT NOT NULL,
                report TEXT NOT NULL,
                record TEXT NOT NULL)""",
            "CREATE INDEX api_reports_created ON api_reports (created_at, id)",
            "CREATE INDEX api_reports_table ON api_reports (table_id, created_at, id)",
            """CREATE TABLE api_report_codes (
                report_id TEXT NOT NULL REFERENCES api_reports(id),
                code TEXT NOT NULL,
                PRIMARY KEY (report_id, code))""",
            "CREATE INDEX api_report_codes_code ON api_report_codes (code, report_id)",
            """CREATE TABLE api_report_players (
                report_id TEXT NOT NULL REFERENCES api_reports(id),
                player TEXT NOT NULL,
                PRIMARY KEY (report_id, player))""",
            "CREATE INDEX api_report_players_player ON api_report_players (player, report_id)",
        ),
    ),
    Migration.portable(
        2,
        "uploaded reports unlisted; per-client rate limits",
        (
            # 'service' (a hand dealt here) or 'upload' (a record sent to POST /v1/audits).
            "ALTER TABLE api_reports ADD COLUMN source TEXT NOT NULL DEFAULT 'service'",
            # Whether listings (GET /v1/audits, the home page) show the report.
            "ALTER TABLE api_reports ADD COLUMN listed INTEGER NOT NULL DEFAULT 1",
            """CREATE TABLE api_rate_buckets (
                bucket TEXT NOT NULL,
                client TEXT NOT NULL,
                tokens DOUBLE PRECISION NOT NULL,
                updated DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (bucket, client))""",
            "CREATE INDEX api_rate_buckets_updated ON api_rate_buckets (bucket, updated)",
        ),
    ),
    Migration.portable(
        3,
        "witness cosignatures of checkpoints",
        (
            # One cosignature/v1 line per checkpoint size and witness key (api/witnesses.py);
            # root is the checkpoint's root hash in base64, cosigned_at the line's timestamp.
            """CREATE TABLE api_cosignatures (
                size BIGINT NOT NULL,
                witness TEXT NOT NULL,
                root TEXT NOT NULL,
                cosigned_at BIGINT NOT NULL,
                line TEXT NOT NULL,
                received_at TEXT NOT NULL,
                PRIMARY KEY (size, witness))""",
        ),
    ),
    Migration.portable(
        4,
        "tournaments and their tables",
        (
            # The event's state (api/tournament/), a cache of its logged events; it holds
            # the entrants' revealed seeds, so it is never served whole.
            """CREATE TABLE api_tournaments (
                id TEXT PRIMARY KEY,
                doc TEXT NOT NULL,
                version INTEGER NOT NULL,
                created_at TEXT NOT NULL)""",
            # private = 1: a duplicate table whose hands only its players may read until
            # the event ends.
            """CREATE TABLE api_tournament_tables (
                table_id TEXT PRIMARY KEY REFERENCES api_tables(id),
                tournament_id TEXT NOT NULL REFERENCES api_tournaments(id),
                round INTEGER NOT NULL,
                number INTEGER NOT NULL,
                private INTEGER NOT NULL)""",
            "CREATE INDEX api_tournament_tables_event ON api_tournament_tables (tournament_id)",
        ),
    ),
    Migration.portable(
        5,
        "finished tournaments' certificate bundles",
        (
            # A finished event never changes: its bundle (api/certificate.py) is computed
            # once, stored as served less the witnesses' cosignatures, which are added to
            # its checkpoint on each request (they may come later).
            """CREATE TABLE api_certificates (
                tournament_id TEXT PRIMARY KEY REFERENCES api_tournaments(id),
                bundle TEXT NOT NULL,
                log_size BIGINT NOT NULL,
                created_at TEXT NOT NULL)""",
        ),
    ),
    Migration.portable(
        6,
        "certificate builds in progress",
        (
            # A finished event's bundle is built off the request path (api/certificate.py):
            # the worker building it holds this row (owner: host/pid) and beats its heart
            # (unix seconds); a row whose owner died or went quiet is taken over.
            """CREATE TABLE api_certificate_builds (
                tournament_id TEXT PRIMARY KEY REFERENCES api_tournaments(id),
                owner TEXT NOT NULL,
                heartbeat DOUBLE PRECISION NOT NULL,
                started_at TEXT NOT NULL)""",
        ),
    ),
    Migration.portable(
        7,
        "tournament entrants in rows of their own",
        (
            # An event's entrants until its deal (api/tournament/): a registration or a
            # reveal writes its entrant's row, not the whole event's document (which grew
            # with every entrant). log_index orders them as the log took them; reveal is
            # the signed tournament_reveal event, held privately until the event ends.
            """CREATE TABLE api_tournament_entrants (
                tournament_id TEXT NOT NULL REFERENCES api_tournaments(id),
                player TEXT NOT NULL,
                log_index BIGINT NOT NULL,
                partner TEXT NOT NULL,
                commitment TEXT NOT NULL,
                registration TEXT NOT NULL,
                reveal TEXT,
                PRIMARY KEY (tournament_id, player))""",
        ),
    ),
    Migration.portable(
        8,
        "requests with an Idempotency-Key",
        (
            # api/idempotency.py: the first request with a key claims it (claimed_at, unix
            # seconds) and stores its answer (JSON [status, body, headers]); a request sent
            # again with the key and the same body gets that answer.
            """CREATE TABLE api_idempotency (
                key TEXT PRIMARY KEY,
                route TEXT NOT NULL,
                body_sha256 TEXT NOT NULL,
                claimed_at DOUBLE PRECISION NOT NULL,
                answer TEXT,
                created_at TEXT NOT NULL)""",
        ),
    ),
    Migration.portable(
        9,
        "tables of people waiting for their seats; tables found by their players",
        (
            # api/seatings.py: a person's table until its four seats are taken. public = 1:
            # listed in the lobby; token: the invitation's secret (a private table is joined
            # only with it); expires_at: unix seconds after which an unfilled table is
            # expired; opened = 1: the four are seated and api_tables holds the table.
            """CREATE TABLE api_seatings (
                table_id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                ruleset TEXT NOT NULL,
                first_dealer TEXT NOT NULL,
                public INTEGER NOT NULL,
                token TEXT NOT NULL,
                creator TEXT NOT NULL REFERENCES api_players(id),
                seat_n TEXT REFERENCES api_players(id),
                seat_e TEXT REFERENCES api_players(id),
                seat_s TEXT REFERENCES api_players(id),
                seat_w TEXT REFERENCES api_players(id),
                created_at TEXT NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL,
                opened INTEGER NOT NULL DEFAULT 0)""",
            "CREATE INDEX api_seatings_lobby ON api_seatings (public, opened, expires_at)",
            # "my tables" (GET /v1/players/{p}/tables): the tables where a player sits
            "CREATE INDEX api_tables_seat_n ON api_tables (seat_n)",
            "CREATE INDEX api_tables_seat_e ON api_tables (seat_e)",
            "CREATE INDEX api_tables_seat_s ON api_tables (seat_s)",
            "CREATE INDEX api_tables_seat_w ON api_tables (seat_w)",
        ),
    ),
    Migration.portable(
        10,
        "partnership invitations of an event's entrants",
        (
            # api/tournament/invitations.py: a player invites a partner into an event (a
            # code anyone may accept, or one addressed to a named player, invitee); the
            # one who accepts is kept (accepted_by) and both then enter naming each other.
            """CREATE TABLE api_tournament_invitations (
                code TEXT PRIMARY KEY,
                tournament_id TEXT NOT NULL REFERENCES api_tournaments(id),
                inviter TEXT NOT NULL,
                invitee TEXT,
                accepted_by TEXT,
                created_at TEXT NOT NULL,
                accepted_at TEXT)""",
            "CREATE INDEX api_tournament_invitations_inviter "
            "ON api_tournament_invitations (tournament_id, inviter)",
        ),
    ),
    Migration.portable(
        11,
        "builds of every kind; finished events' analyses",
        (
            # A finished event's products are built off the request path (api/builds.py):
            # its certificate bundle and its double-dummy analysis, one claim per kind
            # and event. The worker building it holds the row (owner: host/pid), beats its
            # heart (unix seconds) and writes how far it got (done of total); a row whose
            # owner died or went quiet is taken over. The certificate builds under way
            # move here.
            """CREATE TABLE api_builds (
                kind TEXT NOT NULL,
                tournament_id TEXT NOT NULL REFERENCES api_tournaments(id),
                owner TEXT NOT NULL,
                heartbeat DOUBLE PRECISION NOT NULL,
                started_at TEXT NOT NULL,
                done INTEGER,
                total INTEGER,
                PRIMARY KEY (kind, tournament_id))""",
            "INSERT INTO api_builds (kind, tournament_id, owner, heartbeat, started_at) "
            "SELECT 'certificate', tournament_id, owner, heartbeat, started_at "
            "FROM api_certificate_builds",
            "DROP TABLE api_certificate_builds",
            # api/analysis.py: the cayenne-analysis/1 document of a finished event, as
            # `fairplay analyse` gives it on the event's bundle (compact JSON), computed
            # once; hands is how many hands it judged.
            """CREATE TABLE api_analyses (
                tournament_id TEXT PRIMARY KEY REFERENCES api_tournaments(id),
                document TEXT NOT NULL,
                hands INTEGER NOT NULL,
                created_at TEXT NOT NULL)""",
        ),
    ),
    Migration.portable(
        12,
        "the clock of a hand's seats, and the background work's leases",
        (
            # api/clock.py: a clocked hand's time per seat (JSON: since, used, warned,
            # expired), written with the hand's every action; NULL at a table without one.
            "ALTER TABLE api_hands ADD COLUMN clock TEXT",
            # The clock's runner reads the clocked hands waiting for a call or card, every
            # tick: only those rows are indexed.
            "CREATE INDEX api_hands_clocked ON api_hands (phase) WHERE clock IS NOT NULL",
            # One holder at a time of a piece of background work across workers and hosts
            # (the clock's runner): its owner (host/pid) and the unix time it runs until.
            """CREATE TABLE api_leases (
                name TEXT PRIMARY KEY,
                owner TEXT NOT NULL,
                until DOUBLE PRECISION NOT NULL)""",
        ),
    ),
    Migration.portable(
        13,
        "the time control of an ordinary table",
        (
            # api/clock.py: an ordinary table's own time control (JSON: seconds, warning),
            # copied into each of its hands' rows when the hand opens; NULL for none (an
            # event's tables take their event's). A table of people keeps it from its
            # creation until its four are seated and the table opens.
            "ALTER TABLE api_tables ADD COLUMN clock TEXT",
            "ALTER TABLE api_seatings ADD COLUMN clock TEXT",
        ),
    ),
    Migration.portable(
        14,
        "the hands an analysis being built has judged",
        (
            # api/analysis.py: each hand judged while an event's analysis is built (its
            # decisions as JSON, with the settings they were judged with and a digest of
            # the hand's play), so that a build taken over after its host died goes on
            # from there; deleted once the document is stored.
            """CREATE TABLE api_analysis_hands (
                tournament_id TEXT NOT NULL REFERENCES api_tournaments(id),
                source TEXT NOT NULL,
                settings TEXT NOT NULL,
                digest TEXT NOT NULL,
                decisions TEXT NOT NULL,
                PRIMARY KEY (tournament_id, source))""",
        ),
    ),
    Migration.portable(
        15,
        "whether an ordinary table has chat",
        (
            # api/chat.py: 0 when the table's creator turned chat off; NULL (or 1) for on, an
            # ordinary table's default (an event's tables follow their event's setting). A
            # table of people keeps it from its creation until the table opens.
            "ALTER TABLE api_tables ADD COLUMN chat INTEGER",
            "ALTER TABLE api_seatings ADD COLUMN chat INTEGER",
        ),
    ),
)

LATEST = MIGRATIONS[-1].version
_LOCK_KEY = 0x6361_7965_6E6E_6501 & 0x7FFF_FFFF_FFFF_FFFF  # "cayenne" + 1, as a bigint


VERSION_TABLE = VersionTable(
    name="api_schema_migrations",
    create="CREATE TABLE IF NOT EXISTS api_schema_migrations ("
    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    insert="INSERT INTO api_schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
    stamp=lambda: datetime.now(UTC).isoformat(),
    pg_lock=("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,)),
)


def current_version(conn: Connection) -> int:
    row = conn.one("SELECT MAX(version) FROM api_schema_migrations")
    return int(row[0]) if row and row[0] is not None else 0


def migrate(db: Database) -> int:
    """Apply every missing migration; return the schema version now in force."""
    return run(db.connection(), VERSION_TABLE, MIGRATIONS)
