"""The score sheet in the book's layout, as text.

The book writes, for each side, one entry per game (the loser's entry is 0), then
the rubber's 8 and any slams, and the total; then the rubber's value. Before it,
this prints the marker after each hand, as players keep it on a whist marker.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audit.rules.cards import SUIT_LETTERS, Side
from audit.rules.model import Record
from audit.rules.sitting import ScoredRecord

__all__ = [
    "GAME_NAMES",
    "SUIT_CONTRACTS",
    "contract_label",
    "render_sheet",
    "sheet_rows",
    "side_label",
]


def side_label(side: Side, players: Mapping[str, str] | None) -> str:
    if not players:
        return side.name
    names = [players.get(s.name) for s in side.seats]
    if all(names):
        return f"{side.name} ({names[0]}-{names[1]})"
    return side.name


def sheet_rows(number: int, rubber: dict[str, Any], labels: Mapping[str, str]) -> list[str]:
    """A rubber's sheet as the book writes it: a heading, then each side's entries and total."""
    width = max(len(labels["NS"]), len(labels["EW"]))
    lines = ["", f"Rubber {number}" + ("" if rubber["winner"] else " (unfinished)")]
    for side in ("NS", "EW"):
        entries = " ".join(f"{v:>2}" for v in rubber["sheet"][side])
        lines.append(f"  {labels[side]:<{width}}  {entries}  = {rubber['totals'][side]}")
    return lines


GAME_NAMES = {4: "quadruple", 3: "triple", 2: "double", 1: "single"}

SUIT_CONTRACTS = frozenset(SUIT_LETTERS)


def contract_label(contract: str | None, unit: int | None) -> str:
    """A contract as the sheet prints it: a suit made in the cayenne suit (which alone
    counts four a trick) is marked ``(cayenne)``; ``-`` when none was made."""
    if contract is None:
        return "-"
    if contract in SUIT_CONTRACTS and unit == 4:
        return f"{contract} (cayenne)"
    return contract


def render_sheet(record: Record, scored: ScoredRecord) -> str:
    players = record.players
    lines: list[str] = []
    ns, ew = side_label(Side.NS, players), side_label(Side.EW, players)
    start = record.start
    if start is not None:
        lines.append(
            f"Start: {ns} {start.points[0]}, {ew} {start.points[1]} on the marker; "
            f"games {start.games[0]}-{start.games[1]}"
        )
    lines.append(
        f"{'Hand':>4}  {'Dealer':<6}  {'Contract':<12}  {'Unit':>4}  {'Tricks':>6}  "
        f"{'Marker':>7}  Games and bonuses"
    )
    for hand, outcome, score in zip(record.hands, scored.outcomes, scored.scores, strict=True):
        if hand.void is not None:
            note = f": {hand.void.note}" if hand.void.note else ""
            lines.append(
                f"{hand.number:>4}  {hand.dealer.name:<6}  {'void':<12}  {'':>4}  {'':>6}  "
                f"{'':>7}  void ({hand.void.reason.replace('_', ' ')}{note}); "
                "the same dealer deals again"
            )
            continue
        contract = contract_label(
            None if outcome.contract is None else outcome.contract.text, outcome.unit
        )
        if score is None:
            lines.append(
                f"{hand.number:>4}  {hand.dealer.name:<6}  {contract:<12}  {'':>4}  "
                f"{'':>6}  {'':>7}  not scored: the hand cannot be replayed"
            )
            continue
        events = [f"{g.side.name} {GAME_NAMES[g.value]} ({g.value})" for g in score.score.games]
        events += [
            f"{b.side.name} {b.kind.replace('_', ' ')} (+{b.points})" for b in score.score.bonuses
        ]
        pts = score.score.points
        lines.append(
            f"{hand.number:>4}  {hand.dealer.name:<6}  {contract:<12}  {outcome.unit:>4}  "
            f"{outcome.tricks[0]:>2}-{outcome.tricks[1]:<3}  {pts[0]:>3}-{pts[1]:<3}  "
            + (", ".join(events) if events else "")
        )
    for i, rubber in enumerate(scored.sheet.rubbers_json(), 1):
        lines += sheet_rows(i, rubber, {"NS": ns, "EW": ew})
        if rubber["winner"]:
            winner = ns if rubber["winner"] == "NS" else ew
            value = rubber["value"]
            if value > 0:
                lines.append(f"  {winner} win the rubber by {value}.")
            elif value == 0:
                lines.append(f"  {winner} win the rubber, which is a tie on points.")
            else:
                lines.append(f"  {winner} win the rubber but lose {-value} on points.")
    return "\n".join(lines) + "\n"
