"""The score of a duplicate board at a table (shared/spec/tournaments.md).

Each board stands alone: no games, no rubber, nothing on the marker before it. It
takes the rubber scorer's pieces where the rules are the same (the ``tricks`` revoke
penalty, the honours held, the slams: :mod:`audit.rules.scoring`) and differs in four ways:
there are no games (a side's score is not turned into games), a capped side stops at
9 for the board, ``deduct`` and ``add`` both take 3 x unit off the revoking side
(which may fall below 0), and slams are added unmultiplied.

Decision (the spec is silent): "the other side scored 10 or more by tricks" is read
after a revoking side's cap, since a side that revoked cannot go out by cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.rules.contract import Contract
from audit.rules.model import HandRecord
from audit.rules.replay import replay_hand
from audit.rules.ruleset import Ruleset
from audit.rules.scoring import CAPPED, GAME, HandFacts, honours_held, penalised_tricks, slams
from audit.rules.sitting import hand_facts

__all__ = ["PENALTY_UNITS", "BoardScore", "board_score", "score_board_hand"]

PENALTY_UNITS = 3
"""A ``deduct`` or ``add`` revoke penalty takes this many units off the revoking side."""


@dataclass(frozen=True, slots=True)
class BoardScore:
    """Each side's score for the board; ``result`` is the NS result (NS minus EW)."""

    ns: int
    ew: int

    @property
    def result(self) -> int:
        return self.ns - self.ew


def board_score(facts: HandFacts) -> BoardScore:
    """Score a played hand as a duplicate board (the spec's five steps)."""
    revoked = {side for side, _ in facts.revokes}
    unit = facts.unit
    nullo = facts.contract == Contract.NULLO
    score = [0, 0]
    capped = [s in revoked for s in (0, 1)]
    # 1. tricks, after any `tricks` penalty has moved three
    tricks = penalised_tricks(facts)
    odd = 0 if tricks[0] > 6 else 1 if tricks[1] > 6 else None
    if odd is not None:
        score[odd ^ 1 if nullo else odd] = (tricks[odd] - 6) * unit
    by_tricks = [min(v, CAPPED) if capped[s] else v for s, v in enumerate(score)]
    # 2. honours, unless the other side went out by cards; holders without the odd
    #    trick stop at 9
    held = honours_held(facts)
    if held is not None and by_tricks[held[0] ^ 1] < GAME:
        major, units = held
        score[major] += units * unit
        if odd != major:
            capped[major] = True
    # 3. a capped side stops at 9 (tricks and honours together)
    for s in (0, 1):
        if capped[s]:
            score[s] = min(score[s], CAPPED)
    # 4. `deduct` and `add` alike: 3 x unit off the revoking side
    for side, option in facts.revokes:
        if option != "tricks":
            score[side] -= PENALTY_UNITS * unit
    # 5. slams, unmultiplied, never for a side that revoked
    for bonus in slams(facts):
        score[bonus.side] += bonus.points
    return BoardScore(score[0], score[1])


def score_board_hand(hand: HandRecord, ruleset: Ruleset) -> BoardScore | None:
    """Replay a record's hand and score it as a board; ``None`` when it cannot be played
    through (no contract, a trick of three cards): the director adjusts such a board."""
    facts = hand_facts(hand, replay_hand(hand), ruleset)
    return None if facts is None else board_score(facts)
