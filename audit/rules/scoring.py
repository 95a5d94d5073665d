"""The scorer: a hand's points, games and bonuses, and the rubbers of a sitting.

Implements docs/rules.md (the rules digest) exactly. A hand is scored in the book's
order: revoke penalty, tricks, honours, slams. Points go on the marker (0–9 between
hands); every time a side reaches 10 it wins a game, valued from the losers' points
at that moment, and the losers' marker is turned down; points over 10 carry. The
first side to four games wins the rubber (+8); points left on the marker are dropped
and the next hand starts a new rubber.

:func:`score_hand` is pure. :class:`Sheet` keeps the score sheet of a sitting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.record.model import Bonus, GameWon, Score
from audit.rules.cards import Side
from audit.rules.contract import Contract
from audit.rules.ruleset import DEFAULT_RULESET, Ruleset

GAME = 10
GAMES_TO_WIN = 4
RUBBER_BONUS = 8
SLAM = 6
LITTLE_SLAM = 4
CAPPED = 9
_SIDES = (Side.NS, Side.EW)


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the scorer needs to know about a played hand."""

    contract: Contract
    unit: int
    tricks: tuple[int, int]
    """Tricks actually taken, ``(NS, EW)``."""
    honours: tuple[int, int] = (0, 0)
    """Trump honours dealt, ``(NS, EW)``."""
    revokes: tuple[tuple[Side, str], ...] = ()
    """One entry per established revoke: the revoking side and the penalty option."""


@dataclass(frozen=True, slots=True)
class HandScore:
    score: Score
    """Marker after the hand, games won and bonuses, in the record's ``claimed`` shape."""
    games_after: tuple[int, int]
    """Games each side holds in the current rubber after the hand (0–0 when it ended)."""
    rubber_winner: Side | None
    """The side that won the rubber in this hand, if any."""
    adjusted_tricks: tuple[int, int]


def score_hand(
    points: tuple[int, int],
    games: tuple[int, int],
    facts: HandFacts,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> HandScore:
    """Score one hand from the marker ``points`` and the rubber's ``games`` before it."""
    pts = [points[0], points[1]]
    gms = [games[0], games[1]]
    won: list[GameWon] = []
    bonuses: list[Bonus] = []
    capped = [False, False]
    for side, _ in facts.revokes:
        capped[side] = True
    over: list[Side | None] = [None]
    unit = facts.unit
    nullo = facts.contract == Contract.NULLO

    def add(side: int, n: int, *, cap: bool = False) -> None:
        if over[0] is not None or n <= 0:
            return
        total = pts[side] + n
        if capped[side] or cap:
            pts[side] = max(pts[side], min(total, CAPPED))
            return
        other = side ^ 1
        pts[side] = total
        while pts[side] >= GAME:
            won.append(GameWon(_SIDES[side], ruleset.game_value(pts[other])))
            pts[side] -= GAME
            pts[other] = 0
            gms[side] += 1
            if gms[side] >= GAMES_TO_WIN:
                over[0] = _SIDES[side]
                bonuses.append(Bonus(_SIDES[side], "rubber", RUBBER_BONUS))
                return

    # 1. revoke penalties, in the order the revokes were made (`tricks` moves tricks)
    tricks = penalised_tricks(facts)
    for side, option in facts.revokes:
        if option == "deduct":
            if over[0] is None:
                pts[side] = max(0, pts[side] - 3 * unit)
        elif option == "add":
            add(side ^ 1, 3 * unit)
        elif option != "tricks":  # pragma: no cover - validated at the edge
            raise ValueError(f"unknown penalty option {option!r}")

    # 2. tricks over the book
    odd: int | None = None
    for s in (0, 1):
        if tricks[s] > 6:
            odd = s
    if odd is not None:
        add(odd ^ 1 if nullo else odd, (tricks[odd] - 6) * unit)
    out_by_cards = {g.side for g in won}

    # 3. honours, trump contracts only
    held = honours_held(facts)
    if held is not None and _SIDES[held[0] ^ 1] not in out_by_cards:
        major, value = held
        add(major, value * unit, cap=odd != major)

    # 4. slams, on the tricks actually taken; never for a side that revoked
    bonuses.extend(slams(facts))

    winner = over[0]
    if winner is not None:
        pts = [0, 0]
        gms = [0, 0]
    return HandScore(
        score=Score(points=(pts[0], pts[1]), games=tuple(won), bonuses=tuple(bonuses)),
        games_after=(gms[0], gms[1]),
        rubber_winner=winner,
        adjusted_tricks=(tricks[0], tricks[1]),
    )


def penalised_tricks(facts: HandFacts) -> tuple[int, int]:
    """Tricks ``(NS, EW)`` after every ``tricks`` revoke penalty: three tricks (never
    more than there are) go from the revoking side to the adversaries, or in a nullo,
    where tricks hurt, from the adversaries to the revoking side."""
    tricks = [facts.tricks[0], facts.tricks[1]]
    nullo = facts.contract == Contract.NULLO
    for side, option in facts.revokes:
        if option != "tricks":
            continue
        loser, gainer = (side ^ 1, side) if nullo else (side, side ^ 1)
        n = min(3, tricks[loser])
        tricks[loser] -= n
        tricks[gainer] += n
    return (tricks[0], tricks[1])


def honours_held(facts: HandFacts) -> tuple[int, int] | None:
    """``(side, units)`` of the side holding three or more trump honours (3 = 2, 4 = 4,
    5 = 6 units), or ``None`` (no trumps, or honours split 2-2 or less)."""
    if not facts.contract.has_trump:
        return None
    h = facts.honours
    major = 0 if h[0] >= 3 else 1 if h[1] >= 3 else None
    return None if major is None else (major, 2 * h[major] - 4)


def slams(facts: HandFacts) -> list[Bonus]:
    """Slam (13 tricks, 6) and little slam (12, 4), on the tricks actually taken, never
    for a side that revoked; in a nullo they belong to the side that scores the tricks."""
    revoked = {side for side, _ in facts.revokes}
    nullo = facts.contract == Contract.NULLO
    out = []
    for s in (0, 1):
        n = facts.tricks[s]
        if n >= 12:
            owner = s ^ 1 if nullo else s
            if owner not in revoked:
                kind, value = ("slam", SLAM) if n == 13 else ("little_slam", LITTLE_SLAM)
                out.append(Bonus(_SIDES[owner], kind, value))
    return out


@dataclass(slots=True)
class Rubber:
    """One rubber's score sheet."""

    columns: list[tuple[int, int]] = field(default_factory=list)
    """One column per game: ``(NS entry, EW entry)``; the loser's entry is 0."""
    bonuses: list[Bonus] = field(default_factory=list)
    games: list[int] = field(default_factory=lambda: [0, 0])
    winner: Side | None = None
    first_hand: int | None = None
    last_hand: int | None = None

    def sheet(self, side: Side) -> list[int]:
        entries = [col[side] for col in self.columns]
        entries += [b.points for b in sorted(self.bonuses, key=_bonus_order) if b.side == side]
        return entries

    def totals(self) -> tuple[int, int]:
        return (sum(self.sheet(Side.NS)), sum(self.sheet(Side.EW)))

    def value(self) -> int | None:
        if self.winner is None:
            return None
        t = self.totals()
        return t[self.winner] - t[self.winner ^ 1]

    def to_json(self) -> dict[str, Any]:
        t = self.totals()
        obj: dict[str, Any] = {
            "winner": None if self.winner is None else self.winner.name,
            "games": {"NS": self.games[0], "EW": self.games[1]},
            "sheet": {"NS": self.sheet(Side.NS), "EW": self.sheet(Side.EW)},
            "totals": {"NS": t[0], "EW": t[1]},
        }
        if self.winner is not None:
            obj["value"] = self.value()
        return obj


def _bonus_order(b: Bonus) -> int:
    return 0 if b.kind == "rubber" else 1


class Sheet:
    """The marker and the score sheets of a sitting, hand after hand."""

    def __init__(
        self,
        points: tuple[int, int] = (0, 0),
        games: tuple[int, int] = (0, 0),
        prior_sheet: tuple[Sequence[int], Sequence[int]] | None = None,
        ruleset: Ruleset = DEFAULT_RULESET,
    ) -> None:
        self.points = points
        self.games = games
        self.ruleset = ruleset
        first = Rubber(games=[games[0], games[1]])
        if prior_sheet is not None:
            ns, ew = prior_sheet
            width = max(len(ns), len(ew))
            first.columns = [
                (ns[i] if i < len(ns) else 0, ew[i] if i < len(ew) else 0) for i in range(width)
            ]
        self.rubbers: list[Rubber] = [first]

    @property
    def current(self) -> Rubber:
        return self.rubbers[-1]

    def score(self, facts: HandFacts, hand_number: int | None = None) -> HandScore:
        """Score a hand on the current marker and enter it on the sheet."""
        result = score_hand(self.points, self.games, facts, self.ruleset)
        self.enter(result, hand_number)
        return result

    def enter(self, result: HandScore, hand_number: int | None = None) -> None:
        rubber = self.current
        if rubber.first_hand is None:
            rubber.first_hand = hand_number
        rubber.last_hand = hand_number
        for g in result.score.games:
            rubber.columns.append((g.value, 0) if g.side == Side.NS else (0, g.value))
            rubber.games[g.side] += 1
        rubber.bonuses.extend(result.score.bonuses)
        self.points = result.score.points
        self.games = result.games_after
        if result.rubber_winner is not None:
            rubber.winner = result.rubber_winner
            self.rubbers.append(Rubber())

    def rubbers_json(self) -> list[dict[str, Any]]:
        """Every rubber begun (an empty trailing one is not listed)."""
        out = []
        for r in self.rubbers:
            if (
                r.first_hand is None
                and not r.columns
                and r is self.rubbers[-1]
                and len(self.rubbers) > 1
            ):
                continue
            out.append(r.to_json())
        return out
