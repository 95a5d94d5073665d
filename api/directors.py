"""Directors on the service: the operator's grants, logged (audit/tournament/directors.py).

A grant is a ``director_grant`` event of the log's ``directors`` chain, signed by the log
key; the log is the only list of directors (no row of its own), so a verifier reads the
same grants the service obeys. ``fairplay director add KEY`` and ``POST /v1/directors``
(the admin token) both call :func:`grant`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api.signing import parse_player_key
from audit.log.errors import LogChainBroken
from audit.tournament.directors import (
    GRANT_TYPE,
    GRANTS_HAND,
    GRANTS_TABLE,
    Grants,
    director_id,
    grants_of,
)

if TYPE_CHECKING:
    from api.hand_log import HandLog

__all__ = ["grant", "granted"]


def granted(hand_log: HandLog) -> Grants:
    """Every granted director: id → (key text, the grant's log index)."""
    return grants_of(hand_log.log.hand_events(GRANTS_TABLE, GRANTS_HAND))


def grant(
    hand_log: HandLog, key_text: object, now: str, field: str = "public_key"
) -> dict[str, Any]:
    """Grant a director's key (its C2SP verifier key text); the same key again changes
    nothing. ``{director, key, granted_at, new}``."""
    key = parse_player_key(key_text, field)
    who = director_id(key)
    for _ in range(5):
        known = granted(hand_log)
        if who in known:
            text, index = known[who]
            return {"director": who, "key": text, "granted_at": index, "new": False}
        seq, prev = hand_log.log.next_link(GRANTS_TABLE, GRANTS_HAND)
        grant_event = hand_log.server_event(
            GRANTS_TABLE,
            GRANTS_HAND,
            seq,
            prev,
            GRANT_TYPE,
            {"director": who, "key": key.text()},
            now,
        )
        try:
            (index,) = hand_log.append([grant_event])
        except LogChainBroken:
            continue  # another grant came first: read the chain again
        return {"director": who, "key": key.text(), "granted_at": index, "new": True}
    raise LogChainBroken("the directors' chain kept moving; try again")
