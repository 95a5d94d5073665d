"""cayenne-tournament-deals/1 and /2: the boards of a duplicate event, from everyone's seeds.

Duplicate needs one deal per board for the whole field, so the per-hand ceremony
(cayenne-shuffle/1) cannot make it. Here the service commits to a tournament seed when
the event is created and every entrant commits to a seed of its own in its (signed)
registration. The *event key* hashes them with a beacon value; each board's key is an
HMAC of the board number under it; the board's packs are shuffled from that key with the
sampler and Fisher-Yates of cayenne-shuffle/1. A board's dealer and pack follow from its
number (dealer N, E, S, W for boards 1, 2, 3, 4, ...; pack 0 for odd boards, 1 for even).

Version 2 (the service's since issue 18) fixes who deals by rule and takes the choice
away from everyone: the event key covers exactly the entrants whose reveals came before a
*reveal deadline* (in the signed start event), and a drand round that is published only
after it (:mod:`shuffle.beacon`), whose BLS signature the verifier checks. Version 1 (a
beacon value the director fixed before registration closed, or none, and the reveals the
service had when it dealt) is still verified, for the events made under it.

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
from shuffle.beacon import DrandChain, DrandRound, verify_round
from shuffle.dealnumber import DEAL_COUNT, deal_number_unchecked
from shuffle.errors import (
    BeaconInvalidError,
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
    "LABEL_V2_BEACON",
    "LABEL_V2_EVENT_KEY",
    "MAX_BOARDS",
    "VERSION",
    "VERSION_1",
    "VERSION_2",
    "VERSIONS",
    "BoardDeal",
    "Entrant",
    "TournamentTranscript",
    "board_dealer",
    "board_key",
    "board_pack",
    "check_beacon",
    "derive_boards",
    "entrant_commitment",
    "event_key_input",
    "event_key_input_v2",
    "published",
    "service_commitment",
    "tournament_from_json",
    "verify",
    "verify_tournament",
]

VERSION_1 = "cayenne-tournament-deals/1"
VERSION_2 = "cayenne-tournament-deals/2"
VERSION = VERSION_2
"""The version the service makes (issue 18): the reveal deadline and a drand round."""
VERSIONS = {VERSION_1: 1, VERSION_2: 2}
LABEL_SERVICE_COMMIT = b"cayenne-tournament/v1/commit/service"
LABEL_ENTRANT_COMMIT = b"cayenne-tournament/v1/commit/entrant"
LABEL_BEACON = b"cayenne-tournament/v1/beacon"
LABEL_EVENT_KEY = b"cayenne-tournament/v1/key"
LABEL_BOARD = b"cayenne-tournament/v1/board"
LABEL_DEALING = b"cayenne-tournament/v1/stream/dealing"
LABEL_STILL = b"cayenne-tournament/v1/stream/still"
LABEL_V2_EVENT_KEY = b"cayenne-tournament/v2/key"
LABEL_V2_BEACON = b"cayenne-tournament/v2/beacon"
MAX_BOARDS = 10_000
MAX_DEADLINE = 2**40


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


def event_key_input_v2(
    event: str,
    pattern: Sequence[int],
    reveal_deadline: int,
    chain: DrandChain,
    beacon: DrandRound,
    service_seed: bytes,
    revealed: Sequence[tuple[str, bytes]],
) -> bytes:
    """Version 2's bytes hashed into the event key: frame(v2/key, event, pattern,
    u64(reveal deadline), frame(v2/beacon, scheme, public key, u64(genesis), u64(period),
    u64(round), randomness), service seed, u32(n), id_1, seed_1, ..., id_n, seed_n)."""
    beacon_field = kdf.frame(
        LABEL_V2_BEACON,
        chain.scheme.encode(),
        bytes.fromhex(chain.public_key),
        kdf.u64(chain.genesis),
        kdf.u64(chain.period),
        kdf.u64(beacon.round),
        beacon.randomness,
    )
    ordered = sorted(revealed, key=lambda e: e[0].encode())
    fields = [f for entrant, seed in ordered for f in (entrant.encode(), seed)]
    return kdf.frame(
        LABEL_V2_EVENT_KEY,
        event.encode(),
        bytes(pattern),
        kdf.u64(reveal_deadline),
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
    version: int = 1
    """1 (``beacon``, optional) or 2 (``reveal_deadline``, ``chain`` and ``drand``)."""
    reveal_deadline: int | None = None
    """Version 2: Unix seconds; only reveals received before it deal."""
    chain: DrandChain | None = None
    """Version 2: the drand chain named in the start event."""
    drand: DrandRound | None = None
    """Version 2: the chain's first round after the deadline (``None`` until it is out)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "protocol": VERSION_1 if self.version == 1 else VERSION_2,
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
        if self.version == 2:
            out["reveal_deadline"] = self.reveal_deadline
            if self.chain is not None:
                out["beacon"] = self.chain.to_json() | (
                    {} if self.drand is None else self.drand.to_json()
                )
        elif self.beacon is not None:
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
    if t.version == 1:
        key = kdf.sha256(event_key_input(t.event, t.pattern, t.beacon, t.service_seed, revealed))
    else:
        if t.reveal_deadline is None or t.chain is None:
            raise ShuffleIncompleteError("reveal_deadline", "version 2 needs the deadline")
        if t.drand is None:
            raise ShuffleIncompleteError("beacon.signature", "the beacon round is not out yet")
        key = kdf.sha256(
            event_key_input_v2(
                t.event,
                t.pattern,
                t.reveal_deadline,
                t.chain,
                t.drand,
                t.service_seed,
                revealed,
            )
        )
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
    if t.version == 2:
        check_beacon(t)
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


def check_beacon(t: TournamentTranscript) -> bytes:
    """Version 2: the beacon is the chain's first round after the reveal deadline and its
    signature verifies under the chain's key; its randomness, or a ShuffleError."""
    if t.reveal_deadline is None or t.chain is None:
        raise ShuffleIncompleteError("reveal_deadline", "version 2 needs the deadline")
    if t.drand is None:
        raise ShuffleIncompleteError("beacon.signature", "the beacon round is not out yet")
    due = t.chain.round_after(t.reveal_deadline)
    if t.drand.round != due:
        raise BeaconInvalidError(
            "beacon.round",
            f"round {t.drand.round} is not {due}, the first published after the reveal "
            f"deadline {t.reveal_deadline}",
        )
    return verify_round(t.chain, t.drand)


def verify_tournament(obj: object) -> list[BoardDeal]:
    """Verify a published JSON transcript; every board recomputed, or a ShuffleError."""
    return verify(tournament_from_json(obj))


_TOP = frozenset(
    ("protocol", "event", "pattern", "boards", "service", "entrants", "beacon", "deals")
)
_TOP_2 = _TOP | {"reveal_deadline"}
_BEACON_2 = frozenset(
    (
        "scheme",
        "public_key",
        "genesis",
        "period",
        "round",
        "signature",
        "previous_signature",
        "randomness",
    )
)
_DEAL = frozenset(("board", "dealer", "pack", "deal_number", "cayenne"))


def tournament_from_json(obj: object) -> TournamentTranscript:
    """Parse the JSON transcript; :class:`ShuffleFormatError` names the field."""
    protocol = obj.get("protocol") if isinstance(obj, dict) else None
    version = VERSIONS.get(protocol) if isinstance(protocol, str) else None
    if version is None:
        raise ShuffleFormatError("protocol", f"must be {VERSION_1!r} or {VERSION_2!r}")
    needed: tuple[str, ...] = ("protocol", "event", "pattern", "boards", "service", "entrants")
    if version == 2:
        needed += ("reveal_deadline", "beacon")
    top = _obj(obj, "", _TOP if version == 1 else _TOP_2, needed)
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
    chain = drand = deadline = None
    if version == 2:
        deadline = _int(top["reveal_deadline"], "reveal_deadline", 0, MAX_DEADLINE)
        chain, drand = _drand_from_json(top["beacon"])
    elif "beacon" in top:
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
            if (
                not isinstance(number, str)
                or not (number.isascii() and number.isdigit())
                or int(number) >= DEAL_COUNT
            ):
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
        version=version,
        reveal_deadline=deadline,
        chain=chain,
        drand=drand,
    )


def _drand_from_json(obj: object) -> tuple[DrandChain, DrandRound]:
    """Version 2's ``beacon``: the chain (scheme, key, genesis, period) and its round."""
    b = _obj(
        obj,
        "beacon",
        _BEACON_2,
        ("scheme", "public_key", "genesis", "period", "round", "signature", "randomness"),
    )
    chain = DrandChain(
        scheme=str(b["scheme"]) if isinstance(b["scheme"], str) else "",
        public_key=b["public_key"],
        genesis=_int(b["genesis"], "beacon.genesis", 0, MAX_DEADLINE),
        period=_int(b["period"], "beacon.period", 1, 86_400),
    )
    prev = b.get("previous_signature")
    drand = DrandRound(
        round=_int(b["round"], "beacon.round", 1, 2**53 - 1),
        signature=_hex(b["signature"], "beacon.signature", 48, 96).hex(),
        previous_signature=None
        if prev is None
        else _hex(prev, "beacon.previous_signature", 1, 96).hex(),
    )
    if _hex(b["randomness"], "beacon.randomness", 32, 32) != drand.randomness:
        raise BeaconInvalidError("beacon.randomness", "is not SHA-256 of the signature")
    return chain, drand


def published(
    event: str,
    boards: int,
    service_seed: bytes,
    entrants: Sequence[tuple[str, bytes, bool]],
    *,
    pattern: tuple[int, ...] = DEFAULT_PATTERN,
    beacon: Beacon | None = None,
    reveal_deadline: int | None = None,
    chain: DrandChain | None = None,
    drand: DrandRound | None = None,
) -> TournamentTranscript:
    """The complete transcript the service publishes when the event ends: ``entrants``
    are (id, seed, revealed); every board's outcome is written in. With a
    ``reveal_deadline``, ``chain`` and ``drand`` it is version 2, else version 1."""
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
        version=1 if reveal_deadline is None else 2,
        reveal_deadline=reveal_deadline,
        chain=chain,
        drand=drand,
    )
    return replace(t, claimed=tuple(b.to_json() for b in derive_boards(t)))
