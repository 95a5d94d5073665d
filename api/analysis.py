"""The double-dummy analysis of a finished event (docs/analysis.md), built in the
background and stored.

Judging an event's cards takes about a second a hand on one core: minutes for a large
event, too long for a request. So it is built off the request path (:class:`Builds`,
kind ``analysis``) as the certificate's bundle is: when the event ends (or on the first
request for it), by one worker of one host at a time, taken over when its builder dies,
its progress (hands judged of the hands to judge) written to its claim as it goes, each
hand judged kept (``api_analysis_hands``) until the document is stored, so that a build
taken over goes on from the hands its builder had judged. The
document (``cayenne-analysis/1``) is stored (``api_analyses``) as
:func:`audit.analysis.report.analyse` gives it with the default settings: the same
document as ``fairplay analyse`` gives on the event's certificate bundle, since it reads
the same records, names its hands the same way and draws its samples seeded per hand.
Until it is stored the routes answer 202 with the build's progress and ``Retry-After``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from api import faults
from api.builds import Builds, Claim, Progress
from api.database import Connection, Database
from api.tournament.documents import finished_records
from audit.analysis.judge import Decision, HandPlay
from audit.analysis.report import Judged
from audit.errors import WrongPhaseError

__all__ = ["RETRY_AFTER", "Analyses"]

log = logging.getLogger(__name__)

RETRY_AFTER = 2
"""The ``Retry-After`` of an analysis being built (seconds)."""


def _hand_digest(hand: HandPlay) -> str:
    """What a hand judged earlier must match to be taken as judged: its board, contract,
    leader, players and every card played."""
    text = json.dumps(
        [
            hand.board,
            str(hand.contract),
            hand.leader.name,
            list(hand.players),
            [[card, high] for card, high in hand.moves],
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()


Earlier = dict[str, tuple[str, str]]
"""The hands a build judged before it was cut short: source -> (digest, decisions JSON)."""


def _counted(
    progress: Progress,
    earlier: Earlier,
    keep: Callable[[HandPlay, str, tuple[Decision, ...]], None],
) -> Callable[[Callable[[HandPlay], Judged], Sequence[HandPlay]], Iterator[Judged]]:
    """A ``map`` over the hands that takes a hand judged earlier as it was (``earlier``),
    judges the others and ``keep``s each, and tells ``progress`` after each hand."""

    def run(judge: Callable[[HandPlay], Judged], hands: Sequence[HandPlay]) -> Iterator[Judged]:
        for done, hand in enumerate(hands, 1):
            digest = _hand_digest(hand)
            kept = earlier.get(hand.source)
            if kept is not None and kept[0] == digest:
                cards = tuple(Decision.from_json(d) for d in json.loads(kept[1]))
                judged = Judged(hand, cards)
            else:
                judged = judge(hand)
                keep(hand, digest, judged.cards)
            progress(done, len(hands))
            faults.at("analysis_hand")  # the tests' crash (or hold) in the middle of a build
            yield judged

    return run


class Analyses:
    """Finished events' analyses: stored, built in the background, with their progress."""

    def __init__(
        self,
        db: Database,
        now: Callable[[], str],
        load: Callable[[Connection, str], dict[str, Any]],
        from_card: int,
        *,
        seen_draws: int = 0,
    ) -> None:
        self.db = db
        self.now = now
        self._load = load
        """An event's row (:func:`api.tournament.event_rows.read`)."""
        self.from_card = from_card
        """The first card judged (the command's ``--from-card``; the rest its defaults)."""
        self.seen_draws = seen_draws
        """The seen-hand test's deals (the command's ``--seen-draws``; 0: not run)."""
        # one analysis at a time in a process: each keeps a core busy
        self.builds = Builds(
            db,
            "analysis",
            now,
            stored=lambda tid: self.stored_text(tid) is not None,
            make=self._make,
            at_once=1,
        )

    def stored_text(self, tid: str) -> str | None:
        """The event's document as stored (compact JSON), ``None`` before it is built."""
        row = self.db.connection().one(
            "SELECT document FROM api_analyses WHERE tournament_id = ?", (tid,)
        )
        return None if row is None else str(row[0])

    def text_or_progress(self, tid: str) -> str | Claim:
        """The event's stored document, or the build under way: its progress (a build
        is started if none is). Before the end :class:`~audit.errors.WrongPhaseError`:
        the cards are private until then."""
        text = self.stored_text(tid)
        if text is not None:
            return text
        doc = self._load(self.db.connection(), tid)
        if doc["phase"] != "over":
            raise WrongPhaseError(
                f"the tournament is {doc['phase']}; its play is analysed at the end"
            )
        self.builds.ensure(tid)
        text = self.stored_text(tid)
        if text is not None:
            return text
        claim = self.builds.claim(tid)
        if claim is None:
            failed = self.builds.failed(tid)
            if failed is not None:  # failed here a short while ago: said, not started again
                raise failed
        # released between the two reads with nothing stored (a build that failed
        # elsewhere): the next request starts another
        return claim or Claim("", self.now(), None, None)

    def _make(self, tid: str, progress: Progress) -> None:
        from audit.analysis.inputs import event_hands
        from audit.analysis.judge import Settings
        from audit.analysis.report import analyse

        conn = self.db.connection()
        doc = self._load(conn, tid)
        records = [(t, h, json.loads(text)) for t, h, text in finished_records(conn, doc)]
        hands, skipped = event_hands(tid, records)
        settings = Settings(from_card=self.from_card, seen_draws=self.seen_draws)
        key = json.dumps(dataclasses.asdict(settings), sort_keys=True)
        # The hands a build cut short judged with these settings (its host died): taken
        # as they were, so a build taken over goes on where the other stopped.
        earlier: Earlier = {
            str(source): (str(digest), str(decisions))
            for source, digest, decisions in conn.all(
                "SELECT source, digest, decisions FROM api_analysis_hands "
                "WHERE tournament_id = ? AND settings = ?",
                (tid, key),
            )
        }
        if earlier:
            log.warning(
                "analysis of %s: %d hands judged before, taken as judged", tid, len(earlier)
            )

        def keep(hand: HandPlay, digest: str, cards: tuple[Decision, ...]) -> None:
            self.db.connection().execute(
                "INSERT INTO api_analysis_hands "
                "(tournament_id, source, settings, digest, decisions) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (tournament_id, source) DO UPDATE SET settings = excluded.settings, "
                "digest = excluded.digest, decisions = excluded.decisions",
                (tid, hand.source, key, digest, json.dumps([d.to_json() for d in cards])),
            )

        progress(0, len(hands))
        document = analyse(
            hands, settings, skipped=skipped, mapper=_counted(progress, earlier, keep)
        )
        self.db.connection().execute(
            "INSERT INTO api_analyses (tournament_id, document, hands, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",  # the first build's stands
            (
                tid,
                json.dumps(document, ensure_ascii=False, separators=(",", ":")),
                len(hands),
                self.now(),
            ),
        )
        self.db.connection().execute(
            "DELETE FROM api_analysis_hands WHERE tournament_id = ?", (tid,)
        )
