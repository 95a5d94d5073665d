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
from enum import StrEnum
from typing import Any

from audit.rules.cards import Side
from audit.rules.contract import Contract
from audit.rules.explain import GAME_WORD, SIDE_TEXT, Explanation, Line, LineKind, RevokeAt
from audit.rules.model import Bonus, GameWon, Score
from audit.rules.ruleset import DEFAULT_RULESET, Ruleset

__all__ = [
    "CAPPED",
    "GAME",
    "GAMES_TO_WIN",
    "LITTLE_SLAM",
    "RUBBER_BONUS",
    "SLAM",
    "HandFacts",
    "HandScore",
    "Rubber",
    "Sheet",
    "Slip",
    "honours_held",
    "penalised_tricks",
    "score_hand",
    "score_plain",
    "slams",
]

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
    revokes_at: tuple[RevokeAt, ...] = ()
    """Where each of ``revokes`` was made and whether its option was recorded (for the
    explanation only; may be empty)."""


@dataclass(frozen=True, slots=True)
class HandScore:
    score: Score
    """Marker after the hand, games won and bonuses, in the record's ``claimed`` shape."""
    games_after: tuple[int, int]
    """Games each side holds in the current rubber after the hand (0–0 when it ended)."""
    rubber_winner: Side | None
    """The side that won the rubber in this hand, if any."""
    adjusted_tricks: tuple[int, int]
    explanation: Explanation = ()
    """Every step of the score in words, written while computing it (:mod:`audit.rules.explain`)."""


class Slip(StrEnum):
    """A way of scoring wrongly that players make; :func:`score_hand` can score as if
    they made it, so that a claim that differs can be explained (``audit.slips``)."""

    NO_PENALTY = "no_penalty"
    """No revoke penalty applied (the revoking side still capped, still without a slam)."""
    REVOKE_NOT_CAPPED = "revoke_not_capped"
    """The side that revoked was let win a game in the hand."""
    HONOURS_WHEN_OUT = "honours_when_out"
    """Honours scored by a side whose adversaries went out by cards."""
    HONOURS_NOT_CAPPED = "honours_not_capped"
    """Honours let win a game for a side without the odd trick."""
    SLAM_DESPITE_REVOKE = "slam_despite_revoke"
    """A slam given to a side that revoked."""


def score_hand(
    points: tuple[int, int],
    games: tuple[int, int],
    facts: HandFacts,
    ruleset: Ruleset = DEFAULT_RULESET,
    slips: frozenset[Slip] = frozenset(),
) -> HandScore:
    """Score one hand from the marker ``points`` and the rubber's ``games`` before it.

    The result's ``explanation`` says every step. ``slips`` scores as a player making
    those mistakes would (never for the true score; only to explain a claim)."""
    pts = [points[0], points[1]]
    gms = [games[0], games[1]]
    won: list[GameWon] = []
    bonuses: list[Bonus] = []
    lines: list[Line] = []
    capped = [False, False]
    if Slip.REVOKE_NOT_CAPPED not in slips:
        for side, _ in facts.revokes:
            capped[side] = True
    over: list[Side | None] = [None]
    unit = facts.unit
    nullo = facts.contract == Contract.NULLO

    def add(side: int, n: int, *, cap: str | None = None) -> None:
        """Put ``n`` points on ``side``'s marker; ``cap`` says why they stop at 9, if so."""
        if n <= 0:
            return
        if over[0] is not None:
            lines.append(
                Line(
                    LineKind.DROPPED,
                    _SIDES[side],
                    n,
                    f"the rubber is already won: {SIDE_TEXT[side]}'s {n} dropped",
                )
            )
            return
        total = pts[side] + n
        if capped[side]:
            cap = "revoked in this hand and cannot win a game in it"
        if cap is not None:
            kept = max(pts[side], min(total, CAPPED))
            if kept < total:
                lines.append(
                    Line(
                        LineKind.CAP,
                        _SIDES[side],
                        total - kept,
                        f"{SIDE_TEXT[side]} {cap}: capped at 9, {total - kept} of these do not count",
                    )
                )
            pts[side] = kept
            return
        other = side ^ 1
        pts[side] = total
        first = True
        name, other_name = SIDE_TEXT[side], SIDE_TEXT[other]
        while pts[side] >= GAME:
            reached, losers = pts[side], pts[other]
            value = ruleset.game_value(losers)
            won.append(GameWon(_SIDES[side], value))
            pts[side] -= GAME
            pts[other] = 0
            gms[side] += 1
            head = (
                f"{name} reach {reached}" if first else f"{name}'s {reached} carried make another"
            )
            first = False
            had = f"{other_name} had {losers}" + (", now turned down" if losers else "")
            carried = f"; {pts[side]} carried" if pts[side] else ""
            lines.append(
                Line(
                    LineKind.GAME,
                    _SIDES[side],
                    value,
                    f"{head}: game, {GAME_WORD[value]} ({value}): {had}{carried}",
                )
            )
            if gms[side] >= GAMES_TO_WIN:
                over[0] = _SIDES[side]
                bonuses.append(Bonus(_SIDES[side], "rubber", RUBBER_BONUS))
                lines.append(
                    Line(
                        LineKind.RUBBER,
                        _SIDES[side],
                        RUBBER_BONUS,
                        f"{name} won their fourth game: the rubber, {RUBBER_BONUS} on the sheet",
                    )
                )
                return

    # 1. revoke penalties, in the order the revokes were made (`tricks` moves tricks)
    penalised = facts.revokes and Slip.NO_PENALTY not in slips
    tricks, moved = _penalise(facts) if penalised else (facts.tricks, [])
    for i, (side, option) in enumerate(facts.revokes if penalised else ()):
        lines.append(_penalty_line(facts, i, moved[i], ruleset, pts[side], over[0] is not None))
        if option == "deduct":
            if over[0] is None:
                pts[side] = max(0, pts[side] - 3 * unit)
        elif option == "add":
            add(side ^ 1, 3 * unit)
        elif option != "tricks":  # pragma: no cover - validated at the edge
            raise ValueError(f"unknown penalty option {option!r}")
    for side in sorted({side for side, _ in facts.revokes}):
        if capped[side]:
            lines.append(
                Line(
                    LineKind.CAP,
                    side,
                    0,
                    f"{SIDE_TEXT[side]} revoked: they cannot win a game in this hand; "
                    "their points stop at 9",
                )
            )

    # 2. tricks over the book
    odd: int | None = None
    for s in (0, 1):
        if tricks[s] > 6:
            odd = s
    if odd is not None:
        scorer = odd ^ 1 if nullo else odd
        took = f"{SIDE_TEXT[odd]} took {facts.tricks[odd]} tricks"
        if tricks[odd] != facts.tricks[odd]:
            took += f", {tricks[odd]} after the penalty"
        value = (tricks[odd] - 6) * unit
        text = f"{took}: {tricks[odd] - 6} over the book × {unit} = {value}"
        if nullo:
            text += f", to {SIDE_TEXT[scorer]} (in a nullo the adversaries score the tricks)"
        lines.append(Line(LineKind.TRICKS, _SIDES[scorer], value, text))
        add(scorer, value)
    out_by_cards = {g.side for g in won}

    # 3. honours, trump contracts only
    held = honours_held(facts)
    if not facts.contract.has_trump:
        lines.append(
            Line(LineKind.HONOURS, None, 0, f"no honours: {facts.contract.text} has no trumps")
        )
    elif held is None:
        h = facts.honours
        lines.append(
            Line(
                LineKind.HONOURS,
                None,
                0,
                f"trump honours: N-S {h[0]}, E-W {h[1]}; no side holds three, nobody scores them",
            )
        )
    else:
        major, value = held
        h = facts.honours
        name = SIDE_TEXT[major]
        worth = value * unit
        text = (
            f"{name} held {h[major]} trump honours ({SIDE_TEXT[major ^ 1]} {h[major ^ 1]}): "
            f"{value} × {unit} = {worth}"
        )
        if _SIDES[major ^ 1] in out_by_cards and Slip.HONOURS_WHEN_OUT not in slips:
            lines.append(
                Line(
                    LineKind.HONOURS,
                    _SIDES[major],
                    0,
                    f"{text}; they do not count: {name} cannot score honours, "
                    f"{SIDE_TEXT[major ^ 1]} went out by cards",
                )
            )
        else:
            lines.append(Line(LineKind.HONOURS, _SIDES[major], worth, text))
            no_odd = odd != major and Slip.HONOURS_NOT_CAPPED not in slips
            add(
                major,
                worth,
                cap="did not win the odd trick (honours alone never win a game)"
                if no_odd
                else None,
            )

    # 4. slams, on the tricks actually taken; never for a side that revoked
    if facts.tricks[0] >= 12 or facts.tricks[1] >= 12:
        slam_bonuses, slam_lines = _slams(facts, Slip.SLAM_DESPITE_REVOKE in slips)
        bonuses.extend(slam_bonuses)
        lines.extend(slam_lines)

    winner = over[0]
    if winner is not None:
        left = (
            f"the points left on the marker (N-S {pts[0]}, E-W {pts[1]}) are dropped; "
            if pts[0] or pts[1]
            else ""
        )
        lines.append(
            Line(
                LineKind.DROPPED,
                None,
                0,
                f"the rubber is over: {left}the next hand begins a new rubber at 0-0",
            )
        )
        pts = [0, 0]
        gms = [0, 0]
    return HandScore(
        score=Score(points=(pts[0], pts[1]), games=tuple(won), bonuses=tuple(bonuses)),
        games_after=(gms[0], gms[1]),
        rubber_winner=winner,
        adjusted_tricks=(tricks[0], tricks[1]),
        explanation=tuple(lines),
    )


_GAME_TEXT = {v: f"game, {GAME_WORD[v]} ({v})" for v in GAME_WORD}
_SIDE_NAME = ("NS", "EW")


def score_plain(
    points: tuple[int, int],
    games: tuple[int, int],
    contract: Contract,
    unit: int,
    tricks: tuple[int, int],
    honours: tuple[int, int],
    ruleset: Ruleset = DEFAULT_RULESET,
) -> tuple[tuple[int, int], tuple[int, int], int, list[dict[str, Any]]]:
    """:func:`score_hand` of a hand without revokes or slips, for the native fast path:
    the marker and games after the hand, the number of games won in it, and the
    explanation's lines as JSON (``[line.to_json() for line in explanation]``).

    The same steps as :func:`score_hand`, writing the JSON lines directly (no
    :class:`Line`, :class:`Score` or :class:`HandScore` is built); ``score_hand`` stays
    the definition (``tests/audit/test_score_plain.py`` holds the two to one answer)."""
    pts = [points[0], points[1]]
    gms = [games[0], games[1]]
    lines: list[dict[str, Any]] = []
    won_by = [False, False]
    n_won = 0
    over = False
    nullo = contract == 5
    game_value = ruleset.game_value

    def add(side: int, n: int, cap: bool) -> None:
        nonlocal n_won, over
        if n <= 0:
            return
        if over:
            lines.append(
                {
                    "kind": "dropped",
                    "side": _SIDE_NAME[side],
                    "amount": n,
                    "reason": f"the rubber is already won: {SIDE_TEXT[side]}'s {n} dropped",
                }
            )
            return
        total = pts[side] + n
        if cap:
            kept = max(pts[side], min(total, CAPPED))
            if kept < total:
                lines.append(
                    {
                        "kind": "cap",
                        "side": _SIDE_NAME[side],
                        "amount": total - kept,
                        "reason": f"{SIDE_TEXT[side]} did not win the odd trick (honours alone "
                        f"never win a game): capped at 9, {total - kept} of these do not count",
                    }
                )
            pts[side] = kept
            return
        other = side ^ 1
        pts[side] = total
        first = True
        name, other_name = SIDE_TEXT[side], SIDE_TEXT[other]
        while pts[side] >= GAME:
            reached, losers = pts[side], pts[other]
            value = game_value(losers)
            won_by[side] = True
            n_won += 1
            pts[side] -= GAME
            pts[other] = 0
            gms[side] += 1
            head = (
                f"{name} reach {reached}" if first else f"{name}'s {reached} carried make another"
            )
            first = False
            had = f"{other_name} had {losers}, now turned down" if losers else f"{other_name} had 0"
            carried = f"; {pts[side]} carried" if pts[side] else ""
            lines.append(
                {
                    "kind": "game",
                    "side": _SIDE_NAME[side],
                    "amount": value,
                    "reason": f"{head}: {_GAME_TEXT[value]}: {had}{carried}",
                }
            )
            if gms[side] >= GAMES_TO_WIN:
                over = True
                lines.append(
                    {
                        "kind": "rubber",
                        "side": _SIDE_NAME[side],
                        "amount": RUBBER_BONUS,
                        "reason": f"{name} won their fourth game: the rubber, "
                        f"{RUBBER_BONUS} on the sheet",
                    }
                )
                return

    # 2. tricks over the book (no revoke: no penalty, no cap)
    odd = 1 if tricks[1] > 6 else 0 if tricks[0] > 6 else -1
    if odd >= 0:
        scorer = odd ^ 1 if nullo else odd
        over_book = tricks[odd] - 6
        value = over_book * unit
        text = f"{SIDE_TEXT[odd]} took {tricks[odd]} tricks: {over_book} over the book × {unit} = {value}"
        if nullo:
            text += f", to {SIDE_TEXT[scorer]} (in a nullo the adversaries score the tricks)"
        lines.append(
            {"kind": "tricks", "side": _SIDE_NAME[scorer], "amount": value, "reason": text}
        )
        add(scorer, value, False)

    # 3. honours, trump contracts only
    if contract >= 4:
        lines.append(
            {
                "kind": "honours",
                "side": None,
                "amount": 0,
                "reason": f"no honours: {contract.text} has no trumps",
            }
        )
    else:
        h0, h1 = honours
        major = 0 if h0 >= 3 else 1 if h1 >= 3 else -1
        if major < 0:
            lines.append(
                {
                    "kind": "honours",
                    "side": None,
                    "amount": 0,
                    "reason": f"trump honours: N-S {h0}, E-W {h1}; no side holds three, "
                    "nobody scores them",
                }
            )
        else:
            minor = major ^ 1
            value = 2 * honours[major] - 4
            name = SIDE_TEXT[major]
            worth = value * unit
            text = (
                f"{name} held {honours[major]} trump honours ({SIDE_TEXT[minor]} "
                f"{honours[minor]}): {value} × {unit} = {worth}"
            )
            if won_by[minor]:
                lines.append(
                    {
                        "kind": "honours",
                        "side": _SIDE_NAME[major],
                        "amount": 0,
                        "reason": f"{text}; they do not count: {name} cannot score honours, "
                        f"{SIDE_TEXT[minor]} went out by cards",
                    }
                )
            else:
                lines.append(
                    {"kind": "honours", "side": _SIDE_NAME[major], "amount": worth, "reason": text}
                )
                add(major, worth, odd != major)

    # 4. slams, on the tricks taken (no revoke: never denied)
    for s in (0, 1):
        n = tricks[s]
        if n >= 12:
            owner = s ^ 1 if nullo else s
            kind, word, value = (
                ("slam", "slam", SLAM) if n == 13 else ("little_slam", "little slam", LITTLE_SLAM)
            )
            took = f"{SIDE_TEXT[s]} took {n} tricks"
            if nullo:
                took += f" in a nullo: the {word} is {SIDE_TEXT[owner]}'s"
            lines.append(
                {
                    "kind": kind,
                    "side": _SIDE_NAME[owner],
                    "amount": value,
                    "reason": f"{took}: {word}, {value} on the sheet (not the marker)",
                }
            )

    if over:
        left = (
            f"the points left on the marker (N-S {pts[0]}, E-W {pts[1]}) are dropped; "
            if pts[0] or pts[1]
            else ""
        )
        lines.append(
            {
                "kind": "dropped",
                "side": None,
                "amount": 0,
                "reason": f"the rubber is over: {left}the next hand begins a new rubber at 0-0",
            }
        )
        return (0, 0), (0, 0), n_won, lines
    return (pts[0], pts[1]), (gms[0], gms[1]), n_won, lines


def _penalty_line(
    facts: HandFacts, i: int, moved: int, ruleset: Ruleset, marker: int, over: bool
) -> Line:
    """The line of the ``i``-th revoke's penalty (``marker``: the revoking side's points now)."""
    side, option = facts.revokes[i]
    name, other = SIDE_TEXT[side], SIDE_TEXT[side ^ 1]
    at = facts.revokes_at[i] if i < len(facts.revokes_at) else None
    who = f"{at.seat.name} ({name}) revoked at trick {at.trick}" if at else f"{name} revoked"
    if at is None:
        source = f"penalty: {option}"
    elif at.recorded:
        source = f"the penalty recorded: {option}"
    else:
        source = f"no penalty recorded: the default, {ruleset.default_penalty}"
    unit = facts.unit
    if option == "tricks":
        if facts.contract == Contract.NULLO:
            what = f"{other} give {moved} trick{'s' if moved != 1 else ''} to {name} (in a nullo tricks hurt)"
        else:
            what = f"{name} lose {moved} trick{'s' if moved != 1 else ''} to {other}"
        return Line(LineKind.PENALTY_TRICKS, _SIDES[side], moved, f"{who} ({source}): {what}")
    if option == "deduct":
        taken = 0 if over else min(marker, 3 * unit)
        what = f"3 × {unit} off {name}'s marker: {marker} → {marker - taken}"
        return Line(LineKind.PENALTY_DEDUCT, _SIDES[side], taken, f"{who} ({source}): {what}")
    what = f"3 × {unit} = {3 * unit} to {other}"
    return Line(LineKind.PENALTY_ADD, _SIDES[side ^ 1], 3 * unit, f"{who} ({source}): {what}")


def _penalise(facts: HandFacts) -> tuple[tuple[int, int], list[int]]:
    """Tricks ``(NS, EW)`` after every ``tricks`` penalty, and the tricks each revoke moved."""
    tricks = [facts.tricks[0], facts.tricks[1]]
    nullo = facts.contract == Contract.NULLO
    moved: list[int] = []
    for side, option in facts.revokes:
        if option != "tricks":
            moved.append(0)
            continue
        loser, gainer = (side ^ 1, side) if nullo else (side, side ^ 1)
        n = min(3, tricks[loser])
        tricks[loser] -= n
        tricks[gainer] += n
        moved.append(n)
    return (tricks[0], tricks[1]), moved


def penalised_tricks(facts: HandFacts) -> tuple[int, int]:
    """Tricks ``(NS, EW)`` after every ``tricks`` revoke penalty: three tricks (never
    more than there are) go from the revoking side to the adversaries, or in a nullo,
    where tricks hurt, from the adversaries to the revoking side."""
    return _penalise(facts)[0]


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
    return _slams(facts, False)[0]


_SLAM_KIND = {"slam": LineKind.SLAM, "little_slam": LineKind.LITTLE_SLAM}


def _slams(facts: HandFacts, despite_revoke: bool) -> tuple[list[Bonus], list[Line]]:
    revoked = set() if despite_revoke else {side for side, _ in facts.revokes}
    nullo = facts.contract == Contract.NULLO
    out: list[Bonus] = []
    lines: list[Line] = []
    for s in (0, 1):
        n = facts.tricks[s]
        if n >= 12:
            owner = s ^ 1 if nullo else s
            kind, value = ("slam", SLAM) if n == 13 else ("little_slam", LITTLE_SLAM)
            took = f"{SIDE_TEXT[s]} took {n} tricks"
            if nullo:
                took += f" in a nullo: the {kind.replace('_', ' ')} is {SIDE_TEXT[owner]}'s"
            if owner in revoked:
                text = f"{took}; no {kind.replace('_', ' ')}: {SIDE_TEXT[owner]} revoked"
                lines.append(Line(_SLAM_KIND[kind], _SIDES[owner], 0, text))
            else:
                out.append(Bonus(_SIDES[owner], kind, value))
                text = f"{took}: {kind.replace('_', ' ')}, {value} on the sheet (not the marker)"
                lines.append(Line(_SLAM_KIND[kind], _SIDES[owner], value, text))
    return out, lines


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
