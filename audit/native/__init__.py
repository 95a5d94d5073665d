"""The auditor's native fast path, for records in order.

Most records are in order: every hand valid, played by the rules, gathered as won,
scored right and honestly shuffled. For such a record the C extension
``audit.native._fastaudit`` does the whole audit of the hands in one pass over the parsed
JSON and returns the report's ``rubbers`` and the hands as compact structs, from which
each hand's entry in ``hands`` is built when asked for (:class:`Entries`); this module
adds what is per record (the cut for the first deal, each dealer's pooled p-value) and
the rest of the report.

Stacked deals are reported here, from the ``stacking`` objects the extension builds,
by :func:`audit.checks.stacking.stacked_findings`, as the Python check reports them. For anything else to
report, and for anything the extension does not handle (``penalties``, a packet
pattern it was not given, a value it is not certain is valid), it answers ``None``. A
hand's ``shuffle`` transcript (every online hand has one) is verified here, once the
extension has found the hands in order, by the shuffle check's own
:func:`audit.checks.shuffle.hand_findings`; any finding, and the answer is ``None``; :func:`audit.auditor.audit_document` then
runs the Python auditor, which is the definition of the report. The two give the
same report byte for byte wherever the fast path answers
(``tests/audit/test_native.py``).

``FAIRPLAY_NATIVE=0`` in the environment turns the fast path off; without a C compiler
at install time the extension is absent and the auditor is pure Python.

The contract between the two is mechanical: every table and scalar of the detector the
C code uses (``EVIDENCE_P``, ``CLOSE_SPAN``, ``THOROUGH_RIFFLES``, ``SOFT_MIN_SCALE``, the
tail tables) is handed over from Python by ``configure()``; the C code keeps only array
bounds (``NCARDS``, ``MAX_PATTERNS``), which it exports and :func:`_configure` checks
against Python's values. ``_fastaudit.pyi`` types the extension for mypy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any

from audit.checks.dealer import lowest_cut
from audit.checks.findings import ERROR, Finding
from audit.checks.shuffle import hand_findings
from audit.checks.stacking import stacked_findings
from audit.errors import FairplayError
from audit.record.fastload import TopLevel, top_level
from audit.record.lazyload import Decline, RecordStream
from audit.report import REPORT_FORMAT
from audit.rules.cards import ALL_CARDS, SEAT_BY_TEXT
from audit.rules.contract import CONTRACT_BY_TEXT
from audit.rules.deal import PATTERNS, pattern_name
from audit.rules.model import Start
from audit.rules.ruleset import Ruleset
from audit.rules.scoring import score_plain
from audit.stacking.detector import CLOSE_SPAN, EVIDENCE_P, THOROUGH_RIFFLES, StackingResult
from audit.stacking.order import SOFT_MIN_SCALE, eulerian_cdf, most_likely_riffles
from audit.stacking.tables import MIN_P, TEST_RIFFLES, TailTable, load_tables

__all__ = [
    "Entries",
    "NativeContractError",
    "audit_fast",
    "audit_stream",
    "available",
    "check_bounds",
    "scalars",
]

try:
    from audit.native import _fastaudit
except ImportError:  # built without a C compiler: pure Python
    _native: ModuleType | None = None
else:
    _native = _fastaudit


def available() -> bool:
    """Whether the fast path is built and not turned off (``FAIRPLAY_NATIVE=0``)."""
    return _native is not None and os.environ.get("FAIRPLAY_NATIVE", "1") != "0"


def _tail(t: TailTable) -> tuple[tuple[float, ...], int, float]:
    return (t.grid, t.steps, t.deepest)


class NativeContractError(FairplayError):
    """The built extension's array bounds disagree with Python's values (a stale build)."""

    code = "NATIVE_CONTRACT"


def check_bounds(native: ModuleType) -> None:
    """Raise unless the extension's fixed array bounds fit Python's values."""
    if len(ALL_CARDS) != native.NCARDS:
        raise NativeContractError(f"_fastaudit.NCARDS is {native.NCARDS}, not {len(ALL_CARDS)}")
    if len(PATTERNS) > native.MAX_PATTERNS:
        raise NativeContractError(
            f"_fastaudit.MAX_PATTERNS is {native.MAX_PATTERNS}, below {len(PATTERNS)} patterns"
        )


def scalars() -> tuple[float, int, int, float]:
    """The detector's scalars, as configure() takes them."""
    return (EVIDENCE_P, CLOSE_SPAN, THOROUGH_RIFFLES, SOFT_MIN_SCALE)


def _configure() -> None:
    """Hand the detector's tables and scalars to the extension, once per process."""
    if _native is None or _fastaudit.is_configured():
        return
    check_bounds(_fastaudit)
    tables = load_tables()
    riffles = [most_likely_riffles(w) for w in range(53)]
    patterns = []
    for pattern in PATTERNS.values():
        pt = tables.patterns.get(pattern)
        patterns.append(
            (
                pattern,
                pattern_name(pattern),
                None
                if pt is None
                else (
                    pt.test_weights,
                    pt.pair_weights,
                    pt.plain_weights,
                    pt.chain_offset,
                    pt.weights_by_riffles[TEST_RIFFLES],
                    pt.weights_by_riffles,
                    _tail(pt.null),
                    _tail(pt.null_oriented),
                ),
            )
        )
    _fastaudit.configure(
        eulerian_cdf(),
        tuple(k for k, _ in riffles),
        tuple(round(llr, 3) for _, llr in riffles),
        _tail(tables.order_null),
        MIN_P,
        tuple(patterns),
        scalars(),
    )


Claim = tuple[bool, tuple[tuple[Any, Any, Any], ...] | None]
"""What the explanation needs of a claimed hand once its JSON is let go: whether the
claim lists games, and its bonuses as written."""

Extra = Claim | None
"""A raw hand's :data:`Claim`, ``None`` if unclaimed (the trump honours the explanation
needs come from the extension, :meth:`Audited.held`)."""

_NOT_SURE: Any = object()
"""The extra of a hand whose JSON the extension will reject (it was not readable)."""


def hand_extra(raw: Any) -> Extra:
    """The :data:`Extra` of a raw hand (:data:`_NOT_SURE` when it is not readable)."""
    try:
        if "claim" in raw:
            return _NOT_SURE  # type: ignore[no-any-return]  # a claimed hand: Python's
        if "claimed" not in raw:
            return None
        claimed = raw["claimed"]
        bonuses = None
        if "bonuses" in claimed:
            bonuses = tuple((b["side"], b["kind"], b["points"]) for b in claimed["bonuses"])
        return "games" in claimed, bonuses
    except (KeyError, TypeError, AttributeError):
        return _NOT_SURE  # type: ignore[no-any-return]


def _claim(shape: Claim, score: dict[str, Any]) -> dict[str, Any]:
    """The report's ``claimed`` of a hand the extension found claimed right: its points
    and games are the true ones; bonuses are taken as written (any order agrees)."""
    has_games, bonuses = shape
    points = score["points"]
    out: dict[str, Any] = {"points": {"NS": points["NS"], "EW": points["EW"]}}
    if has_games:
        out["games"] = [{"side": g["side"], "value": g["value"]} for g in score["games"]]
    if bonuses is not None:
        out["bonuses"] = [{"side": side, "kind": kind, "points": p} for side, kind, p in bonuses]
    return out


def _explained(
    audited: _fastaudit.Audited, extras: Sequence[Extra], ruleset: Ruleset, start: Start | None
) -> Iterator[dict[str, Any]]:
    """Each hand's entry with its ``claimed`` and ``explanation`` added, as the Python
    auditor adds them (raises :class:`Decline` if the Python scorer disagrees with the
    extension).

    The explanation is written by the Python scorer's path for a hand without revokes
    (:func:`audit.rules.scoring.score_plain`, held to :func:`~audit.rules.scoring.score_hand`
    by a property test) from the hands the extension replayed (a record in order has no
    revoke, so the contract, unit, tricks and honours are all it needs); if that scorer's
    marker and games are not the extension's, the Python auditor decides."""
    marker, games = (start.points, start.games) if start is not None else ((0, 0), (0, 0))
    entry, held = audited.entry, audited.held
    for i, shape in enumerate(extras):
        if shape is _NOT_SURE:
            raise Decline("a hand the extension should not have read")
        h = entry(i)
        contract = CONTRACT_BY_TEXT[h["contract"]]
        tricks = h["tricks"]
        marker, games, n_won, lines = score_plain(
            marker, games, contract, h["unit"], (tricks["NS"], tricks["EW"]), held(i), ruleset
        )
        score = h["score"]
        points = score["points"]
        if marker != (points["NS"], points["EW"]) or n_won != len(score["games"]):
            raise Decline("the scorers disagree")
        if shape is not None:
            h["claimed"] = _claim(shape, score)
        h["explanation"] = lines
        yield h


class Entries:
    """The report's ``hands`` of a record the extension audited, built as they are asked for.

    ``len()`` is the number of hands; each iteration builds every entry anew (the
    extension's part, then its claim and explanation) and holds none of them, so a writer
    can write each and let it go: the entries whole are about three times the record's
    file. Iterating raises :class:`Decline` if the Python scorer disagrees with the
    extension (the Python auditor decides, then). ``dealers`` are the seats that dealt.
    """

    def __init__(
        self,
        audited: _fastaudit.Audited,
        extras: Sequence[Extra],
        ruleset: Ruleset,
        start: Start | None,
        dealers: frozenset[str],
    ) -> None:
        self._audited = audited
        self._extras = extras
        self._ruleset = ruleset
        self._start = start
        self.dealers = dealers

    def __len__(self) -> int:
        return len(self._audited)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return _explained(self._audited, self._extras, self._ruleset, self._start)


class _Infos(Mapping[int, dict[str, Any]]):
    """Hand number -> the report's ``stacking``, built when looked up (the findings look
    up only the deals below alpha and the deals of a dealer pooled below it)."""

    def __init__(self, audited: _fastaudit.Audited) -> None:
        self._audited = audited

    def __getitem__(self, number: int) -> dict[str, Any]:
        if not 1 <= number <= len(self._audited):
            raise KeyError(number)
        info: dict[str, Any] | None = self._audited.stacking(number - 1)
        if info is None:
            raise KeyError(number)
        return info

    def __iter__(self) -> Iterator[int]:
        for i in range(len(self._audited)):
            if self._audited.stacking(i) is not None:
                yield i + 1

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Shuffled:
    """Each hand's ``shuffle`` transcript, verified as the Python auditor's shuffle check
    verifies it (a voided hand's is not, but the extension declines those); ``found``
    once any gives a finding (SHUFFLE_MISMATCH: the Python auditor reports it)."""

    def __init__(self, top: TopLevel) -> None:
        ruleset, _, players, *_ = top
        self._players: Mapping[str, str] = players or {}
        self._pattern = ruleset.deal_pattern
        self.found = False

    def check(self, number: int, raw: Any) -> None:
        # a raw hand that is not an object, or whose `shuffle` is not one, the extension
        # declines; one with `void` it declines too
        if self.found or type(raw) is not dict or "shuffle" not in raw or "void" in raw:
            return
        if type(raw["shuffle"]) is not dict or hand_findings(
            number, raw, self._players, self._pattern
        ):
            self.found = True


def audit_fast(doc: Any, alpha: float) -> dict[str, Any] | None:
    """The report of a record in order, or ``None`` (the Python auditor decides)."""
    if not available():
        return None
    top = top_level(doc)
    if top is None:
        return None
    hands_raw = top[-1]
    extras = [hand_extra(raw) for raw in hands_raw]
    report = _audit(top, hands_raw, extras, alpha)
    if report is None:
        return None
    shuffled = _Shuffled(top)
    for number, raw in enumerate(hands_raw, 1):
        shuffled.check(number, raw)
    if shuffled.found:
        return None
    try:
        report["hands"] = list(report["hands"])
    except Decline:
        return None
    return report


def audit_stream(stream: RecordStream, alpha: float) -> dict[str, Any] | None:
    """The report of a streamed record in order, or ``None`` (read it whole, then).

    The hands go through the extension one at a time (each hand's JSON is let go once
    read into its compact struct), so the record's tree is never whole in memory. The
    report is :func:`audit_fast`'s, byte for byte, except that its ``hands`` are
    :class:`Entries`: each hand's entry is built (its claim and explanation too) as it
    is asked for, so a writer can write it and let it go, and the report's entries are
    never whole either. Iterating them may raise :class:`Decline` (the Python scorer
    disagrees with the extension: read the record whole, then). ``None`` when the
    stream declines or the record is not in order, or holds no hand.
    """
    if not available():
        return None
    top = top_level({**stream.head, "hands": []})
    if top is None:
        return None
    extras: list[Extra] = []
    shuffled = _Shuffled(top)

    def hands() -> Iterator[Any]:
        for number, raw in enumerate(stream.hands(), 1):
            extras.append(hand_extra(raw))
            shuffled.check(number, raw)
            yield raw

    try:
        report = _audit(top, hands(), extras, alpha)
    except Decline:
        return None
    return None if shuffled.found else report


def _audit(
    top: TopLevel,
    hands_raw: Iterable[Any],
    extras: Sequence[Extra],
    alpha: float,
) -> dict[str, Any] | None:
    """The report, its ``hands`` as :class:`Entries`, or ``None``."""
    ruleset, start, players, cut, meta, _ = top
    _configure()
    independent = bool(meta.get("independent_deals"))
    result = _fastaudit.audit_hands(
        hands_raw,
        ruleset.deal_pattern,
        ruleset.seven_is == "double",
        start.points if start else (0, 0),
        start.games if start else (0, 0),
        start.sheet if start else None,
        independent,
    )
    if result is None:
        return None
    audited, rubbers = result
    if not len(audited):
        return None  # no hand: the Python auditor says why
    # the pooling needs every deal's p-value; each deal's evidence is in its `stacking`,
    # which the findings look up (and the entries build) again, one at a time
    results = [
        (SEAT_BY_TEXT[dealer], None if test is None else StackingResult(*test))
        for dealer, test in audited.results()
    ]
    dealers = frozenset(seat.name for seat, _ in results)
    findings: list[Finding] = []
    if not independent:
        first = lowest_cut(cut)
        head = audited.entry(0)
        if first is not None and "board" not in head and head["dealer"] != first.name:
            return None  # WRONG_DEALER: the Python auditor reports it
        findings = stacked_findings(results, _Infos(audited), players, alpha)
    del results
    findings.sort(key=Finding.sort_key)
    report = {
        "format": REPORT_FORMAT,
        "verdict": "irregular" if any(f.severity == ERROR for f in findings) else "clean",
        "alpha": alpha,
        "findings": [f.to_json() for f in findings],
        "hands": Entries(audited, extras, ruleset, start, dealers),
        "rubbers": rubbers,
    }
    return report
