"""cayenne-tournament-deals/1: the boards of a duplicate event, from everyone's seeds.

Duplicate needs one deal per board for the whole field, so the per-hand ceremony
(cayenne-shuffle/1) cannot make it. Here the service commits to a tournament seed when
the event is created, every entrant commits to a seed of its own in its (signed)
registration, and a beacon value fixed before registration closes may be mixed in.
The *event key* hashes all of them; each board's key is an HMAC of the board number
under it; the board's packs are shuffled from that key with the sampler and
Fisher-Yates of cayenne-shuffle/1. A board's dealer and pack follow from its number
(dealer N, E, S, W for boards 1, 2, 3, 4, ...; pack 0 for odd boards, 1 for even).

An entrant who never reveals is withdrawn before the first board: the derivation is
defined over the entrants who revealed, sorted by the UTF-8 bytes of their ids.
docs/shuffle-protocol.md (part II) gives every byte; :func:`verify_tournament`
recomputes every board from the published transcript and raises a
:class:`shuffle.errors.ShuffleError` naming the field at the first problem.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from audit.errors import FairplayError
from audit.rules.cards import CARD_TEXT, Card, Seat, parse_card
from audit.rules.deal import DEFAULT_PATTERN, deal_from_order
from shuffle import kdf
from shuffle.dealnumber import DEAL_COUNT, deal_number_unchecked
from shuffle.errors import (
    CommitmentMismatchError,
    OutcomeMismatchError,
    ShuffleFormatError,
    ShuffleIncompleteError,
)
from shuffle.permute import shuffle_pack
from shuffle.protocol import Beacon, _hex, _int, _obj, _text

__all__ = [
    "LABEL_BEACON",
    "LABEL_BOARD",
    "LABEL_DEALING",
    "LABEL_ENTRANT_COMMIT",
    "LABEL_EVENT_KEY",
    "LABEL_SERVICE_COMMIT",
    "LABEL_STILL",
    "MAX_BOARDS",
    "VERSION",
    "BoardDeal",
    "Entrant",
    "TournamentTranscript",
    "board_dealer",
    "board_key",
    "board_pack",
    "derive_boards",
    "entrant_commitment",
    "event_key_input",
    "published",
    "service_commitment",
    "tournament_from_json",
    "verify",
    "verify_tournament",
]

VERSION = "cayenne-tournament-deals/1"
LABEL_SERVICE_COMMIT = b"cayenne-tournament/v1/commit/service"
LABEL_ENTRANT_COMMIT = b"cayenne-tournament/v1/commit/entrant"
LABEL_BEACON = b"cayenne-tournament/v1/beacon"
LABEL_EVENT_KEY = b"cayenne-tournament/v1/key"
LABEL_BOARD = b"cayenne-tournament/v1/board"
LABEL_DEALING = b"cayenne-tournament/v1/stream/dealing"
LABEL_STILL = b"cayenne-tournament/v1/stream/still"
MAX_BOARDS = 10_000


def service_commitment(seed: bytes, event: str) -> bytes:
    """SHA-256 of frame(commit/service, event, seed); the seed is 32 bytes."""
    return kdf.sha256(kdf.frame(LABEL_SERVICE_COMMIT, event.encode(), seed))


def entrant_commitment(seed: bytes, event: str, entrant: str) -> bytes:
    """SHA-256 of frame(commit/entrant, event, entrant id, seed); 16..64 bytes of seed.
    The event and the id are inside the hash: a copied commitment opens for no one else."""
    return kdf.sha256(kdf.frame(LABEL_ENTRANT_COMMIT, event.encode(), entrant.encode(), seed))


def event_key_input(
    event: str,
    pattern: Sequence[int],
    beacon: Beacon | None,
    service_seed: bytes,
    revealed: Sequence[tuple[str, bytes]],
) -> bytes:
    """The exact bytes hashed into the event key: frame(key, event, pattern, beacon field,
    service seed, u32(n), id_1, seed_1, ..., id_n, seed_n), entrants sorted by id bytes."""
    beacon_field = (
        b""
        if beacon is None
        else kdf.frame(
            LABEL_BEACON, beacon.source.encode(), kdf.u64(beacon.round), beacon.randomness
        )
    )
    ordered = sorted(revealed, key=lambda e: e[0].encode())
    fields = [f for entrant, seed in ordered for f in (entrant.encode(), seed)]
    return kdf.frame(
        LABEL_EVENT_KEY,
        event.encode(),
        bytes(pattern),
        beacon_field,
        service_seed,
        kdf.u32(len(ordered)),
        *fields,
    )


def board_key(event_key: bytes, board: int) -> bytes:
    """HMAC-SHA256(event key, frame(board, u64(board)))."""
    return hmac.new(event_key, kdf.frame(LABEL_BOARD, kdf.u64(board)), hashlib.sha256).digest()


def board_dealer(board: int) -> Seat:
    """N deals board 1, E board 2, S board 3, W board 4, N board 5, ..."""
    return Seat((board - 1) % 4)


def board_pack(board: int) -> int:
    """Pack 0 for odd boards, 1 for even ones."""
    return (board - 1) % 2


@dataclass(frozen=True, slots=True)
class Entrant:
    id: str
    commitment: bytes
    seed: bytes | None = None
    """``None``: never revealed, so withdrawn before the first board."""


@dataclass(frozen=True, slots=True)
class BoardDeal:
    board: int
    dealer: Seat
    pack: int
    pack_order: list[Card]
    deal: dict[Seat, list[Card]]
    cayenne: Card
    deal_number: int

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "dealer": self.dealer.name,
            "pack": self.pack,
            "deal_number": str(self.deal_number),
            "cayenne": CARD_TEXT[self.cayenne],
        }


@dataclass(frozen=True, slots=True)
class TournamentTranscript:
    event: str
    boards: int
    service_commitment: bytes
    entrants: tuple[Entrant, ...]
    pattern: tuple[int, ...] = DEFAULT_PATTERN
    service_seed: bytes | None = None
    beacon: Beacon | None = None
    claimed: tuple[dict[str, Any], ...] | None = None
    """The published ``deals`` (each board's dealer, pack, deal number, cayenne)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "protocol": VERSION,
            "event": self.event,
            "pattern": list(self.pattern),
            "boards": self.boards,
            "service": {"commitment": self.service_commitment.hex()},
            "entrants": [
                {"id": e.id, "commitment": e.commitment.hex()}
                | ({} if e.seed is None else {"seed": e.seed.hex()})
                for e in self.entrants
            ],
        }
        if self.service_seed is not None:
            out["service"]["seed"] = self.service_seed.hex()
        if self.beacon is not None:
            out["beacon"] = {
                "source": self.beacon.source,
                "round": self.beacon.round,
                "randomness": self.beacon.randomness.hex(),
            }
        if self.claimed is not None:
            out["deals"] = [dict(d) for d in self.claimed]
        return out


def derive_boards(t: TournamentTranscript) -> list[BoardDeal]:
    """Every board, 1 to ``t.boards``; no commitment is checked (see :func:`verify`)."""
    if t.service_seed is None:
        raise ShuffleIncompleteError("service.seed", "the service's seed has not been revealed")
    revealed = [(e.id, e.seed) for e in t.entrants if e.seed is not None]
    if not revealed:
        raise ShuffleIncompleteError("entrants", "no entrant revealed a seed")
    key = kdf.sha256(event_key_input(t.event, t.pattern, t.beacon, t.service_seed, revealed))
    out = []
    for board in range(1, t.boards + 1):
        bk = board_key(key, board)
        order = shuffle_pack(bk, LABEL_DEALING)
        dealer = board_dealer(board)
        deal = deal_from_order(order, dealer, t.pattern)
        cayenne = shuffle_pack(bk, LABEL_STILL)[0]
        out.append(
            BoardDeal(
                board, dealer, board_pack(board), order, deal, cayenne, deal_number_unchecked(deal)
            )
        )
    return out


def verify(t: TournamentTranscript) -> list[BoardDeal]:
    """Check every revealed seed against its commitment (constant time), derive every
    board and compare it with the published ``deals``."""
    if t.service_seed is None:
        raise ShuffleIncompleteError("service.seed", "the service's seed has not been revealed")
    if not hmac.compare_digest(service_commitment(t.service_seed, t.event), t.service_commitment):
        raise CommitmentMismatchError(
            "service.seed", "the seed does not open the service's commitment"
        )
    for i, e in enumerate(t.entrants):
        if e.seed is not None and not hmac.compare_digest(
            entrant_commitment(e.seed, t.event, e.id), e.commitment
        ):
            raise CommitmentMismatchError(
                f"entrants[{i}].seed", f"{e.id}'s seed does not open {e.id}'s commitment"
            )
    boards = derive_boards(t)
    if t.claimed is not None:
        if len(t.claimed) != len(boards):
            raise OutcomeMismatchError("deals", f"{len(t.claimed)} deals for {len(boards)} boards")
        for i, (claim, board) in enumerate(zip(t.claimed, boards, strict=True)):
            derived = board.to_json()
            for name in ("board", "dealer", "pack", "deal_number", "cayenne"):
                if claim[name] != derived[name]:
                    raise OutcomeMismatchError(
                        f"deals[{i}].{name}",
                        f"board {board.board}: the published {name} {claim[name]!r} is not the "
                        f"derived {derived[name]!r}",
                    )
    return boards


def verify_tournament(obj: object) -> list[BoardDeal]:
    """Verify a published JSON transcript; every board recomputed, or a ShuffleError."""
    return verify(tournament_from_json(obj))


_TOP = frozenset(
    ("protocol", "event", "pattern", "boards", "service", "entrants", "beacon", "deals")
)
_DEAL = frozenset(("board", "dealer", "pack", "deal_number", "cayenne"))


def tournament_from_json(obj: object) -> TournamentTranscript:
    """Parse the JSON transcript; :class:`ShuffleFormatError` names the field."""
    top = _obj(obj, "", _TOP, ("protocol", "event", "pattern", "boards", "service", "entrants"))
    if top["protocol"] != VERSION:
        raise ShuffleFormatError("protocol", f"must be {VERSION!r}")
    event = _text(top["event"], "event", allow_empty=False)
    pattern = top["pattern"]
    if (
        not isinstance(pattern, list)
        or not pattern
        or any(not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 13 for n in pattern)
        or sum(pattern) != 13
    ):
        raise ShuffleFormatError("pattern", "must be packet sizes (1..13) adding up to 13")
    boards = _int(top["boards"], "boards", 1, MAX_BOARDS)
    service = _obj(top["service"], "service", frozenset(("commitment", "seed")), ("commitment",))
    commitment = _hex(service["commitment"], "service.commitment", 32, 32)
    seed = None
    if "seed" in service:
        seed = _hex(service["seed"], "service.seed", kdf.SERVER_SEED_BYTES, kdf.SERVER_SEED_BYTES)
    raw = top["entrants"]
    if not isinstance(raw, list) or not raw:
        raise ShuffleFormatError("entrants", "must be a non-empty list")
    entrants = []
    seen: set[str] = set()
    for i, e in enumerate(raw):
        path = f"entrants[{i}]"
        item = _obj(e, path, frozenset(("id", "commitment", "seed")), ("id", "commitment"))
        ident = _text(item["id"], f"{path}.id", allow_empty=False)
        if ident in seen:
            raise ShuffleFormatError(f"{path}.id", f"{ident!r} is listed twice")
        seen.add(ident)
        entrants.append(
            Entrant(
                ident,
                _hex(item["commitment"], f"{path}.commitment", 32, 32),
                None
                if "seed" not in item
                else _hex(item["seed"], f"{path}.seed", kdf.SEAT_SEED_MIN, kdf.SEAT_SEED_MAX),
            )
        )
    beacon = None
    if "beacon" in top:
        b = _obj(
            top["beacon"],
            "beacon",
            frozenset(("source", "round", "randomness")),
            ("source", "round", "randomness"),
        )
        beacon = Beacon(
            _text(b["source"], "beacon.source", allow_empty=False),
            _int(b["round"], "beacon.round", 0, 2**64 - 1),
            _hex(b["randomness"], "beacon.randomness", 1, 64),
        )
    claimed: tuple[dict[str, Any], ...] | None = None
    if "deals" in top:
        if not isinstance(top["deals"], list):
            raise ShuffleFormatError("deals", "must be a list")
        items = []
        for i, d in enumerate(top["deals"]):
            item = _obj(d, f"deals[{i}]", _DEAL, tuple(sorted(_DEAL)))
            _int(item["board"], f"deals[{i}].board", 1, MAX_BOARDS)
            if item["dealer"] not in ("N", "E", "S", "W"):
                raise ShuffleFormatError(f"deals[{i}].dealer", "must be N, E, S or W")
            _int(item["pack"], f"deals[{i}].pack", 0, 1)
            number = item["deal_number"]
            if not isinstance(number, str) or not number.isdigit() or int(number) >= DEAL_COUNT:
                raise ShuffleFormatError(
                    f"deals[{i}].deal_number", "must be a deal number in decimal"
                )
            try:
                parse_card(item["cayenne"])
            except FairplayError:
                raise ShuffleFormatError(f"deals[{i}].cayenne", "is not a card") from None
            items.append(dict(item))
        claimed = tuple(items)
    return TournamentTranscript(
        event=event,
        boards=boards,
        service_commitment=commitment,
        entrants=tuple(entrants),
        pattern=tuple(pattern),
        service_seed=seed,
        beacon=beacon,
        claimed=claimed,
    )


def published(
    event: str,
    boards: int,
    service_seed: bytes,
    entrants: Sequence[tuple[str, bytes, bool]],
    *,
    pattern: tuple[int, ...] = DEFAULT_PATTERN,
    beacon: Beacon | None = None,
) -> TournamentTranscript:
    """The complete transcript the service publishes when the event ends: ``entrants``
    are (id, seed, revealed); every board's outcome is written in."""
    t = TournamentTranscript(
        event=event,
        boards=boards,
        service_commitment=service_commitment(service_seed, event),
        entrants=tuple(
            Entrant(i, entrant_commitment(s, event, i), s if revealed else None)
            for i, s, revealed in entrants
        ),
        pattern=pattern,
        service_seed=service_seed,
        beacon=beacon,
    )
    return replace(t, claimed=tuple(b.to_json() for b in derive_boards(t)))
