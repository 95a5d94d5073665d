"""Service configuration: one frozen value built from defaults, a mapping and the environment.

Everything that varies between a laptop demo, the test suite and a production host is
here: the database URL, the admin credential, whether players may register themselves,
the request size limit, the log's origin and key file, and the clock (injected so tests
can move time).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from audit.analysis.judge import FROM_CARD
from audit.errors import FairplayError

__all__ = ["DEFAULT_DATA_DIR", "DEFAULT_MAX_BODY", "Config", "ConfigError", "load_config"]

DEFAULT_DATA_DIR = Path("data")
DEFAULT_MAX_BODY = 256 * 1024
"""The largest request body accepted (a record of a long sitting is well under this)."""


class ConfigError(FairplayError):
    """A configuration setting that cannot be used."""

    code = "INVALID_CONFIG"


@dataclass(frozen=True, slots=True)
class Config:
    """The service's settings. Build with :func:`load_config`."""

    database_url: str = ""
    """``sqlite:///path/to/file.db`` or ``postgresql://...``; empty means ``data/fairplay.db``."""
    admin_token: str = ""
    """The administrator's bearer credential; empty disables administrative endpoints."""
    self_registration: bool = False
    """Whether anyone may register a player key without the admin credential."""
    max_body: int = DEFAULT_MAX_BODY
    request_timeout: int = 30
    """Seconds a client has to send a whole request (head and body) from its first byte
    under ``fairplay serve``; then 408 (api/server.py)."""
    log_origin: str = "cayenne-fairplay.local/log"
    """The log's origin line (the first line of every checkpoint)."""
    log_key_file: str = ""
    """Where the log's Ed25519 signing key is kept; empty means beside the SQLite file."""
    data_dir: str = str(DEFAULT_DATA_DIR)
    signature_window: int = 300
    """Seconds a signed read request stays valid (clock skew allowance)."""
    ceremony_timeout: int = 600
    """Seconds a shuffle ceremony may wait for a seat after its first commitment before
    the hand is voided (0: never; an administrator voids by hand)."""
    upload_burst: int = 10
    """Records one client address may upload at once (``POST /v1/audits``)..."""
    upload_per_hour: int = 60
    """...and then an hour (0: no limit). See api/ratelimit.py."""
    register_burst: int = 5
    """Players one client address may self-register at once..."""
    register_per_hour: int = 20
    """...and then an hour (0: no limit). The administrator is not limited."""
    bot_tables: bool = False
    """Whether a registered player may open a table against three house bots the service
    runs (``POST /v1/bot-tables``, api/house.py); ``fairplay serve --demo`` turns it on."""
    people_table_ttl: int = 86400
    """Seconds a table of people (``POST /v1/people-tables``) waits for its four seats
    before it expires: it leaves the lobby and can no longer be joined (api/seatings.py)."""
    bot_pace: float = 1.0
    """Seconds a house bot waits before each call or card (about a card a second)."""
    bot_pause: float = 4.0
    """Seconds a house bot waits after a hand ends before it commits to the next."""
    max_streams: int = 8
    """Server-sent event streams one process serves at once; each holds a thread, so
    ``fairplay serve`` keeps this below its ``--threads`` (429 beyond it)."""
    witness_keys: tuple[str, ...] = ()
    """The ``cosignature/v1`` verifier keys of the witnesses whose cosignatures the service
    accepts and serves (``FAIRPLAY_WITNESS_KEYS``, separated by whitespace)."""
    beacon_url: str = ""
    """The drand chain's HTTP base (``FAIRPLAY_BEACON_URL``, api/beacon.py) that duplicate
    events are dealt from (cayenne-tournament-deals/2); empty: events are dealt by
    version 1, which whoever holds the log key can steer (docs/tournaments.md)."""
    reveal_seconds: int = 600
    """The default time entrants have to reveal their seeds after the start (v2)."""
    analysis_from_card: int = FROM_CARD
    """The first card a finished event's analysis judges (``fairplay analyse
    --from-card``; ``FAIRPLAY_ANALYSIS_FROM_CARD``): lower finds more, and costs more
    (docs/analysis.md). The document's ``settings`` say which was used."""
    analysis_seen_draws: int = 0
    """Deals per opponent per open decision for the analysis's seen-hand test (``fairplay
    analyse --seen-draws``; ``FAIRPLAY_ANALYSIS_SEEN_DRAWS``, 0 to 1000): 0 runs no such
    test; 15 makes the analysis cost about four times the CPU (docs/analysis.md)."""
    clock_tick: float = 0.25
    """Seconds between two looks of the seats' clock at the clocked hands (api/clock.py;
    0 turns the clock's runner off in this process: another host's runs it)."""
    clock: Callable[[], float] = field(default=time.time, compare=False)
    testing: bool = False

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{Path(self.data_dir) / 'fairplay.db'}"


_ENV = {
    "FAIRPLAY_DATABASE_URL": "database_url",
    "FAIRPLAY_ADMIN_TOKEN": "admin_token",
    "FAIRPLAY_SELF_REGISTRATION": "self_registration",
    "FAIRPLAY_MAX_BODY": "max_body",
    "FAIRPLAY_REQUEST_TIMEOUT": "request_timeout",
    "FAIRPLAY_LOG_ORIGIN": "log_origin",
    "FAIRPLAY_LOG_KEY_FILE": "log_key_file",
    "FAIRPLAY_DATA_DIR": "data_dir",
    "FAIRPLAY_CEREMONY_TIMEOUT": "ceremony_timeout",
    "FAIRPLAY_UPLOAD_BURST": "upload_burst",
    "FAIRPLAY_UPLOAD_PER_HOUR": "upload_per_hour",
    "FAIRPLAY_REGISTER_BURST": "register_burst",
    "FAIRPLAY_REGISTER_PER_HOUR": "register_per_hour",
    "FAIRPLAY_BOT_TABLES": "bot_tables",
    "FAIRPLAY_BOT_PACE": "bot_pace",
    "FAIRPLAY_PEOPLE_TABLE_TTL": "people_table_ttl",
    "FAIRPLAY_BOT_PAUSE": "bot_pause",
    "FAIRPLAY_MAX_STREAMS": "max_streams",
    "FAIRPLAY_WITNESS_KEYS": "witness_keys",
    "FAIRPLAY_BEACON_URL": "beacon_url",
    "FAIRPLAY_REVEAL_SECONDS": "reveal_seconds",
    "FAIRPLAY_CLOCK_TICK": "clock_tick",
    "FAIRPLAY_ANALYSIS_FROM_CARD": "analysis_from_card",
    "FAIRPLAY_ANALYSIS_SEEN_DRAWS": "analysis_seen_draws",
}

_RATES = ("upload_burst", "upload_per_hour", "register_burst", "register_per_hour")


def _coerce(name: str, value: Any) -> Any:
    if name == "witness_keys":
        return _witness_keys(value)
    if name in ("self_registration", "bot_tables") and isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if name in ("bot_pace", "bot_pause", "clock_tick") and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ConfigError(
                f"{name}: {value!r} is not a number", details={"field": name}
            ) from None
    integers = (
        "max_body",
        "request_timeout",
        "signature_window",
        "ceremony_timeout",
        "max_streams",
        "reveal_seconds",
        "people_table_ttl",
        "analysis_from_card",
        "analysis_seen_draws",
        *_RATES,
    )
    if name in integers and isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise ConfigError(
                f"{name}: {value!r} is not an integer", details={"field": name}
            ) from None
    return value


def _witness_keys(value: Any) -> tuple[str, ...]:
    """Witness keys from whitespace-separated text or a list; each must parse."""
    from audit.log.cosignature import WitnessKey
    from audit.log.errors import KeyFormatError

    items = value.split() if isinstance(value, str) else list(value)
    keys = []
    for item in items:
        try:
            keys.append(WitnessKey.from_text(item).text())
        except KeyFormatError as exc:
            raise ConfigError(
                f"witness_keys: {exc.message}", details={"field": "witness_keys"}
            ) from None
    return tuple(keys)


def load_config(
    overrides: Mapping[str, Any] | Config | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Defaults, then ``FAIRPLAY_*`` environment variables, then ``overrides``."""
    if isinstance(overrides, Config):
        return overrides
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for var, name in _ENV.items():
        if var in env:
            values[name] = _coerce(name, env[var])
    for key, value in (overrides or {}).items():
        if key not in Config.__dataclass_fields__:
            raise ConfigError(f"unknown setting {key!r}", details={"field": key})
        values[key] = _coerce(key, value)
    config = replace(Config(), **values)
    if config.max_body < 1024:
        raise ConfigError("max_body must be at least 1024 bytes", details={"field": "max_body"})
    for name in _RATES:
        value = getattr(config, name)
        if not isinstance(value, int) or value < 0:
            raise ConfigError(f"{name} must be a whole number, 0 or more", details={"field": name})
    for kind in ("upload", "register"):
        if getattr(config, f"{kind}_per_hour") > 0 and getattr(config, f"{kind}_burst") < 1:
            raise ConfigError(
                f"{kind}_burst must be 1 or more while {kind}_per_hour is set",
                details={"field": f"{kind}_burst"},
            )
    if not isinstance(config.request_timeout, int) or config.request_timeout < 1:
        raise ConfigError(
            "request_timeout must be a whole number of seconds, 1 or more",
            details={"field": "request_timeout"},
        )
    if not isinstance(config.ceremony_timeout, int) or config.ceremony_timeout < 0:
        raise ConfigError(
            "ceremony_timeout must be a whole number of seconds, 0 or more",
            details={"field": "ceremony_timeout"},
        )
    for name in ("bot_pace", "bot_pause"):
        value = getattr(config, name)
        if not isinstance(value, (int, float)) or not 0 <= value <= 3600:
            raise ConfigError(f"{name} must be 0 to 3600 seconds", details={"field": name})
    if not isinstance(config.max_streams, int) or config.max_streams < 1:
        raise ConfigError("max_streams must be 1 or more", details={"field": "max_streams"})
    if not isinstance(config.analysis_from_card, int) or not 1 <= config.analysis_from_card <= 51:
        raise ConfigError(
            "analysis_from_card must be a card from 1 to 51",
            details={"field": "analysis_from_card"},
        )
    seen = config.analysis_seen_draws
    if not isinstance(seen, int) or not 0 <= seen <= 1000:
        raise ConfigError(
            "analysis_seen_draws must be 0 to 1000 deals",
            details={"field": "analysis_seen_draws"},
        )
    return config
