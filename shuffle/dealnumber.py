"""Deal numbers: a deal's index among all 52!/(13!)^4 deals, as Big Deal numbers them.

Big Deal (Hans van Staveren's dealer for bridge tournaments) maps a number
``0 <= g < D``, ``D = C(52,13)·C(39,13)·C(26,13) = 53644737765488792839237440000``, to a
deal and back. Cards are taken in Big Deal's order AS KS … 2S AH … 2C (index 0..51).
North's thirteen cards are a subset of the 52, East's of the 39 left, South's of the 26
left (West gets the rest); each subset is ranked *lexicographically* by the sorted
positions of its cards among the cards still left, and

    g = rank_N · C(39,13)·C(26,13) + rank_E · C(26,13) + rank_S.

For a 13-subset of ``n`` cards at sorted positions ``p_0 < … < p_12`` the lexicographic
rank is ``C(n,13) - 1 - Σ_j C(n-1-p_j, 13-j)``. The mapping was read from Big Deal's
``code_to_hand`` (binomial.c) and ``cnv_int_byh`` (output.c); tests check it against a
transcription of that loop. The number depends only on who holds which card, not on the
order the cards were dealt, so two tables can cross-check a deal by one number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb

from audit.rules.cards import Card, Seat

__all__ = [
    "BIG_DEAL_INDEX",
    "BINOM",
    "C26",
    "C39",
    "C52",
    "CARD_OF_BIG_DEAL_INDEX",
    "DEAL_COUNT",
    "DealNumberError",
    "deal_from_number",
    "deal_number",
    "deal_number_unchecked",
    "number_of_owners",
]

BINOM: tuple[tuple[int, ...], ...] = tuple(tuple(comb(n, k) for k in range(14)) for n in range(53))
"""``BINOM[n][k] = C(n, k)`` for ``n <= 52``, ``k <= 13``."""

C26 = comb(26, 13)
C39 = comb(39, 13)
C52 = comb(52, 13)
DEAL_COUNT = C52 * C39 * C26
"""52!/(13!)^4, the number of different deals."""

BIG_DEAL_INDEX: tuple[int, ...] = tuple((c // 13) * 13 + 12 - c % 13 for c in range(52))
"""Big Deal's index (AS = 0, KS = 1, …, 2C = 51) of each of our cards."""
CARD_OF_BIG_DEAL_INDEX: tuple[Card, ...] = tuple(sorted(range(52), key=lambda c: BIG_DEAL_INDEX[c]))

_PLAN: tuple[tuple[Seat, int, int], ...] = (
    (Seat.N, 52, C39 * C26),
    (Seat.E, 39, C26),
    (Seat.S, 26, 1),
)


class DealNumberError(ValueError):
    """A deal that is not four hands of 13 different cards, or a number out of range."""


def _check(deal: Mapping[Seat, Sequence[Card]]) -> None:
    seen = 0
    for seat in Seat:
        cards = deal.get(seat)
        if cards is None or len(cards) != 13:
            raise DealNumberError(f"{seat.name} must hold 13 cards")
        for c in cards:
            if not isinstance(c, int) or not 0 <= c < 52 or seen >> c & 1:
                raise DealNumberError(f"{seat.name}: card {c!r} is not a card or is dealt twice")
            seen |= 1 << c


def deal_number(deal: Mapping[Seat, Sequence[Card]]) -> int:
    """The Big Deal number of ``deal`` (each seat's 13 cards, in any order)."""
    _check(deal)
    return deal_number_unchecked(deal)


def deal_number_unchecked(deal: Mapping[Seat, Sequence[Card]]) -> int:
    """:func:`deal_number` for a deal already known to be valid (the derivation's own)."""
    owner = [0] * 52
    bd = BIG_DEAL_INDEX
    for seat in (Seat.E, Seat.S, Seat.W):
        for c in deal[seat]:
            owner[bd[c]] = seat
    return number_of_owners(owner)


_B52 = tuple(BINOM[51 - p] for p in range(52))
_B39 = tuple(BINOM[38 - p] if p <= 38 else BINOM[0] for p in range(52))
_B26 = tuple(BINOM[25 - p] if p <= 25 else BINOM[0] for p in range(52))
_MULT_N = C39 * C26
_BASE = (C52 - 1) * _MULT_N + (C39 - 1) * C26 + (C26 - 1)


def number_of_owners(owner: Sequence[int]) -> int:
    """The deal number from ``owner[i]``, the seat (0..3) holding Big Deal card ``i``.

    One pass in Big Deal order: a card's position among the cards left for East is
    the count of non-North cards before it, for South of cards held by South or West.
    """
    s_n = s_e = s_s = 0
    k_n = k_e = k_s = 13
    pos_e = pos_s = 0
    for p in range(52):
        o = owner[p]
        if o == 0:
            s_n += _B52[p][k_n]
            k_n -= 1
            continue
        if o == 1:
            s_e += _B39[pos_e][k_e]
            k_e -= 1
        else:
            if o == 2:
                s_s += _B26[pos_s][k_s]
                k_s -= 1
            pos_s += 1
        pos_e += 1
    return _BASE - s_n * _MULT_N - s_e * C26 - s_s


def deal_from_number(number: int) -> dict[Seat, list[Card]]:
    """The deal with Big Deal number ``number``; each hand in canonical card order."""
    if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number < DEAL_COUNT:
        raise DealNumberError(f"a deal number is an integer in 0..{DEAL_COUNT - 1}")
    rest = list(range(52))  # Big Deal indexes still undealt, in order
    hands: dict[Seat, list[Card]] = {}
    g = number
    for seat, n, mult in _PLAN:
        r, g = divmod(g, mult)
        # Decode the combinadic value C(n,13) - 1 - r greedily, largest binomials first.
        value = BINOM[n][13] - 1 - r
        positions: list[int] = []
        q = n - 1
        for k in range(13, 0, -1):
            while BINOM[q][k] > value:
                q -= 1
            value -= BINOM[q][k]
            positions.append(n - 1 - q)
            q -= 1
        chosen = [rest[p] for p in positions]
        hands[seat] = sorted(CARD_OF_BIG_DEAL_INDEX[i] for i in chosen)
        taken = set(positions)
        rest = [x for i, x in enumerate(rest) if i not in taken]
    hands[Seat.W] = sorted(CARD_OF_BIG_DEAL_INDEX[i] for i in rest)
    return hands
