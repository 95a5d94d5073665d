"""Every card of a hand judged against the double-dummy solver, and against what its
player could see.

A hand is replayed card by card (:func:`decisions`). At each judged card the solver gives
every legal move's value; the card's **cost** is the tricks its side gives away against
the best move. From the ``from_card``-th card on, the deals the player could be facing
are also drawn (:func:`sample_view`): the unseen cards dealt at random to the other
hands, each as long as it is and void where it has shown out. The true deal is one more
such deal, and for an honest player, who chooses from what he sees, it is exchangeable
with the drawn ones (the shuffle is uniform). So the chance that the card chosen is
double-dummy best in the true deal, given the multiset of the ``samples + 1`` deals'
answers, is ``k / (samples + 1)``, where ``k`` counts the deals in which it is best: that
is :attr:`Decision.p_view`, the null probability the test of :mod:`audit.analysis.knowledge`
compares the pair's choices with (docs/analysis.md).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.analysis.solver import Position, move_text, solve_position
from audit.rules.cards import SUIT_OF, Card, Mask, Seat, cards_of
from audit.rules.contract import Contract
from audit.rules.play import trick_winner

__all__ = [
    "DEFENCE",
    "DECLARER",
    "FROM_CARD",
    "LEAD",
    "Decision",
    "HandPlay",
    "Settings",
    "Table",
    "decisions",
    "sample_view",
]

LEAD = "lead"
"""The opening lead."""
DECLARER = "declarer"
"""A card of the contract side (the dealer and his partner)."""
DEFENCE = "defence"
"""A card of the contract side's adversaries after the opening lead."""

Move = tuple[Card, bool]


@dataclass(frozen=True, slots=True)
class HandPlay:
    """One hand as played at one table: what the judge needs of a record's hand."""

    source: str
    """Where it came from (a file and hand number), for people."""
    board: str
    """Hands with the same cards dealt the same way are the same board (the field)."""
    contract: Contract
    leader: Seat
    """Who led the first trick (the dealer's left)."""
    players: tuple[str, str, str, str]
    """The players' ids by seat (N, E, S, W)."""
    deal: tuple[Mask, Mask, Mask, Mask]
    moves: tuple[Move, ...]
    """Every card in play order from the opening lead, with its ace-high flag."""


FROM_CARD = 12
"""The first card judged by default (its index: 0 is the opening lead), for the command,
the service and the simulation alike: from the fourth trick on (docs/analysis.md)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How much of each hand is judged, and how hard."""

    from_card: int = FROM_CARD
    """Cards from this index on (0 is the opening lead) are judged and tested."""
    leads: bool = False
    """Also judge the opening lead (a whole-deal search: seconds to a minute each)."""
    samples: int = 15
    """Deals drawn from each player's view for the test (0: no test)."""
    seen_draws: int = 0
    """Deals drawn, at each open decision, from the player's view with one opponent's hand
    seen (each opponent in turn): what a player who saw that hand would play
    (:attr:`Decision.seen`; 0: not drawn)."""
    seed: int = 22


@dataclass(frozen=True, slots=True)
class Decision:
    """One card judged."""

    index: int
    """Its place in the hand, 0 for the opening lead."""
    seat: Seat
    role: str
    """:data:`LEAD`, :data:`DECLARER` or :data:`DEFENCE`."""
    move: str
    cost: int
    """Tricks given away against the best move (0 when the card is double-dummy best)."""
    best: tuple[str, ...]
    """The double-dummy best moves."""
    options: int
    """Legal moves with different values (1: nothing to choose)."""
    p_view: float | None
    """Null chance that the card is best, from the player's view (None: not tested)."""
    favourite: bool | None = None
    """Whether the card has the best average value over the draws alone (the choice a
    strong player who sees only his view makes; None: not tested)."""
    cost_view: float | None = None
    """The card's mean cost over the draws (tricks given away against each draw's best
    move): what his view says the card gives away, beside :attr:`cost` in the true deal
    (None: not tested)."""
    seen: tuple[tuple[bool, bool, float, float], ...] = ()
    """With :attr:`Settings.seen_draws`, for his left-hand then right-hand opponent: whether
    the card is the favourite of the draws that keep that opponent's hand as it is (what he
    would play, seeing it); whether that favourite is also his view's; that favourite's
    ``p_view``; and what his view says it gives away against the view's favourite (tricks,
    on average over the view's draws)."""
    seen_gain: tuple[tuple[float, float, float], ...] = field(default=(), compare=False)
    """With :attr:`Settings.seen_draws`, for each opponent as in :attr:`seen`: what seeing
    his hand adds to the value of the card played (its mean over the seen draws less its
    mean over the view's, in tricks, for the player's side), the same averaged over the
    legal moves, and the same for the view's favourite. Kept with the decision (its JSON,
    where drawn) but not yet in the analysis's document, nor compared: measured by the
    simulation (docs/analysis.md, "What seeing a hand adds to the card played")."""

    @property
    def choice(self) -> bool:
        """Whether the player had a choice that mattered double dummy."""
        return self.options > 1

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON (:meth:`from_json` gives it back equal, floats exact): the
        service keeps each hand judged while an analysis is built (api/analysis.py)."""
        return {
            "index": self.index,
            "seat": self.seat.name,
            "role": self.role,
            "move": self.move,
            "cost": self.cost,
            "best": list(self.best),
            "options": self.options,
            "p_view": self.p_view,
            "favourite": self.favourite,
            "cost_view": self.cost_view,
            "seen": [list(s) for s in self.seen],
            # only where drawn, so that a hand judged without the seen draws keeps the same
            # JSON as before it existed
            **({"seen_gain": [list(g) for g in self.seen_gain]} if self.seen_gain else {}),
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Decision:
        return cls(
            index=int(doc["index"]),
            seat=Seat.parse(doc["seat"]),
            role=str(doc["role"]),
            move=str(doc["move"]),
            cost=int(doc["cost"]),
            best=tuple(str(m) for m in doc["best"]),
            options=int(doc["options"]),
            p_view=doc["p_view"],
            favourite=doc["favourite"],
            cost_view=doc["cost_view"],
            # as loaded: JSON keeps an int an int and a float a float, as the document does
            seen=tuple((a, b, c, d) for a, b, c, d in doc["seen"]),
            seen_gain=tuple((a, b, c) for a, b, c in doc.get("seen_gain", ())),
        )

    @property
    def hidden(self) -> bool:
        """Whether the view alone leaves it open which move is best (0 < p < 1)."""
        return self.p_view is not None and 0.0 < self.p_view < 1.0


def _maximiser(pos: Position) -> int:
    nullo = pos.contract == Contract.NULLO
    return pos.counted ^ 1 if nullo else pos.counted


def _best_moves(values: dict[Move, int], sign: int) -> tuple[int, set[Move]]:
    top = max(sign * v for v in values.values())
    return top, {m for m, v in values.items() if sign * v == top}


def sample_view(
    pos: Position,
    seat: Seat,
    voids: Sequence[int],
    rng: random.Random,
    *,
    seen: frozenset[Seat] = frozenset(),
) -> tuple[Mask, Mask, Mask, Mask]:
    """A deal of the unseen cards to the hands ``seat`` cannot see, uniformly among those
    that give each hand its length and respect the suits it has shown out of
    (``voids[s]``, a bit per suit). ``seen`` are other hands he sees (a peek)."""
    hidden = [s for s in Seat if s != seat and s not in seen]
    pool: list[Card] = []
    for s in hidden:
        pool.extend(cards_of(pos.hands[s]))
    sizes = [pos.hands[s].bit_count() for s in hidden]
    for _ in range(200):
        rng.shuffle(pool)
        out = list(pos.hands)
        at = 0
        ok = True
        for s, n in zip(hidden, sizes, strict=True):
            mask = 0
            for c in pool[at : at + n]:
                if voids[s] >> SUIT_OF[c] & 1:
                    ok = False
                    break
                mask |= 1 << c
            if not ok:
                break
            out[s] = mask
            at += n
        if ok:
            return (out[0], out[1], out[2], out[3])
    return _sample_constrained(pos, hidden, sizes, voids, pool, rng)


def _sample_constrained(
    pos: Position,
    hidden: list[Seat],
    sizes: list[int],
    voids: Sequence[int],
    pool: list[Card],
    rng: random.Random,
) -> tuple[Mask, Mask, Mask, Mask]:
    """Suit by suit, when rejection keeps failing (many voids): each suit's cards go to
    the hands not void in it, in proportion to the room left (close to uniform)."""
    while True:
        room = dict(zip(hidden, sizes, strict=True))
        out = list(pos.hands)
        for s in hidden:
            out[s] = 0
        order = sorted(pool, key=lambda c: sum(1 for s in hidden if not voids[s] >> SUIT_OF[c] & 1))
        stuck = False
        for c in order:
            can = [s for s in hidden if room[s] and not voids[s] >> SUIT_OF[c] & 1]
            if not can:
                stuck = True
                break
            s = rng.choices(can, weights=[room[x] for x in can])[0]
            out[s] |= 1 << c
            room[s] -= 1
        if not stuck:
            return (out[0], out[1], out[2], out[3])


class Table:
    """The play of one hand as it goes: the cards still held, the suits each hand has
    shown out of, the trick in progress, the contract side's tricks (what a judge and a
    simulated player read, :meth:`position`; :meth:`play` moves it on)."""

    def __init__(self, deal: Sequence[Mask], contract: Contract, leader: Seat) -> None:
        self.contract = contract
        self.counted = leader.side.other
        self.hands = list(deal)
        self.voids = [0, 0, 0, 0]
        self.leader = leader
        self.won = 0
        self.trick: list[Move] = []

    @property
    def to_play(self) -> Seat:
        return Seat((self.leader + len(self.trick)) & 3)

    def position(self) -> Position:
        h = self.hands
        return Position(
            (h[0], h[1], h[2], h[3]),
            self.contract,
            int(self.counted),
            self.won,
            self.leader,
            tuple(self.trick),
        )

    def play(self, move: Move) -> None:
        card, _high = move
        seat = self.to_play
        if self.trick and SUIT_OF[card] != SUIT_OF[self.trick[0][0]]:
            self.voids[seat] |= 1 << SUIT_OF[self.trick[0][0]]
        self.hands[seat] &= ~(1 << card)
        self.trick.append(move)
        if len(self.trick) == 4:
            high_mask = sum(1 << c for c, h in self.trick if h)
            cards = [c for c, _ in self.trick]
            winner = trick_winner(cards, self.leader, self.contract, high_mask)
            self.won += winner.side == self.counted
            self.leader = winner
            self.trick = []


def decisions(
    hand: HandPlay,
    settings: Settings = Settings(),
) -> list[Decision]:
    """Every judged card of ``hand``, in play order."""
    # seeded by the play itself, not where it was read from: a record and the same hand in
    # a bundle are judged alike
    played = ",".join(move_text(c, h) for c, h in hand.moves)
    key = f"{settings.seed}:{hand.board}:{hand.contract.text}:{played}"
    rng = random.Random(key)
    seen_rng = random.Random(f"seen:{key}")  # the view's draws are the same with or without
    table = Table(hand.deal, hand.contract, hand.leader)
    out: list[Decision] = []
    for index, move in enumerate(hand.moves):
        judged = index >= settings.from_card or (index == 0 and settings.leads)
        if judged and any(table.hands):
            pos = table.position()
            out.append(
                _judge(pos, table.to_play, move, index, table.voids, settings, rng, seen_rng)
            )
        table.play(move)
    return out


def _judge(
    pos: Position,
    seat: Seat,
    move: Move,
    index: int,
    voids: Sequence[int],
    settings: Settings,
    rng: random.Random,
    seen_rng: random.Random,
) -> Decision:
    values = solve_position(pos)
    sign = 1 if seat.side == _maximiser(pos) else -1
    top, best = _best_moves(values, sign)
    chosen = values.get(move)
    if chosen is None:  # a record's card the replay already refused; judged as forced
        chosen = top * sign
    cost = top - sign * chosen
    options = len({v for v in values.values()})
    p_view: float | None = None
    favourite: bool | None = None
    cost_view: float | None = None
    seen: tuple[tuple[bool, bool, float, float], ...] = ()
    seen_gain: tuple[tuple[float, float, float], ...] = ()
    if settings.samples and index >= settings.from_card and options > 1:
        hits = int(move in best)
        best_in = dict.fromkeys(values, 0)
        for m in best:
            best_in[m] += 1
        totals = dict.fromkeys(values, 0)
        given = 0
        for _ in range(settings.samples):
            dealt = sample_view(pos, seat, voids, rng)
            alt = Position(dealt, pos.contract, pos.counted, pos.won, pos.leader, pos.trick)
            alt_values = solve_position(alt)
            alt_top, alt_best = _best_moves(alt_values, sign)
            hits += move in alt_best
            for m in alt_best:
                best_in[m] += 1
            given += alt_top - sign * alt_values.get(move, sign * alt_top)
            for m, v in alt_values.items():
                totals[m] += sign * v
        p_view = hits / (settings.samples + 1)
        top_total = max(totals.values())
        favourite = move in totals and totals[move] == top_total
        cost_view = given / settings.samples
        if settings.seen_draws:
            both = [
                _seen(pos, seat, other, move, voids, settings, seen_rng, sign, totals, best_in)
                for other in (seat.left, seat.partner.left)
            ]
            seen = tuple(facts for facts, _ in both)
            seen_gain = tuple(gain for _, gain in both)
    if index == 0:
        role = LEAD
    elif seat.side == pos.counted:
        role = DECLARER
    else:
        role = DEFENCE
    return Decision(
        index=index,
        seat=seat,
        role=role,
        move=move_text(*move),
        cost=cost,
        best=tuple(sorted(move_text(*m) for m in best)),
        options=options,
        p_view=p_view,
        favourite=favourite,
        cost_view=cost_view,
        seen=seen,
        seen_gain=seen_gain,
    )


def _seen(
    pos: Position,
    seat: Seat,
    other: Seat,
    move: Move,
    voids: Sequence[int],
    settings: Settings,
    rng: random.Random,
    sign: int,
    view_totals: dict[Move, int],
    best_in: dict[Move, int],
) -> tuple[tuple[bool, bool, float, float], tuple[float, float, float]]:
    """What the player would play seeing ``other``'s hand (:attr:`Decision.seen`), and
    what seeing it adds to each card's value (:attr:`Decision.seen_gain`)."""
    totals = dict.fromkeys(view_totals, 0)
    for _ in range(settings.seen_draws):
        dealt = sample_view(pos, seat, voids, rng, seen=frozenset({other}))
        alt = Position(dealt, pos.contract, pos.counted, pos.won, pos.leader, pos.trick)
        for m, v in solve_position(alt).items():
            totals[m] += sign * v
    top = max(totals.values())
    favs = [m for m, t in totals.items() if t == top]
    # the seen favourite the view likes best, when the seen draws tie
    fav = max(favs, key=lambda m: view_totals[m])
    view_top = max(view_totals.values())
    gap = (view_top - view_totals[fav]) / settings.samples
    deals = settings.samples + 1
    gain = {m: totals[m] / settings.seen_draws - view_totals[m] / settings.samples for m in totals}
    view_fav = max(view_totals, key=lambda m: view_totals[m])
    mean_gain = sum(gain.values()) / len(gain)
    return (
        (move in favs, view_totals[fav] == view_top, best_in[fav] / deals, round(gap, 4)),
        (round(gain.get(move, 0.0), 4), round(mean_gain, 4), round(gain[view_fav], 4)),
    )
