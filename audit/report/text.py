"""The audit report as text, for a terminal."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any, Protocol

from audit.report.explain import claim_line, ended_by_claim, next_deal_pointer
from audit.report.sheet import contract_label, sheet_rows, side_label
from audit.rules.cards import SEAT_BY_TEXT, Side
from audit.rules.explain import alpha_note

__all__ = ["ReportHands", "render_text", "text_lines", "void_text"]


class ReportHands(Protocol):
    """A report's ``hands`` as the text walks them: counted, and iterated twice (the
    table, then the explanations). A list, or entries built as they are asked for."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[dict[str, Any]]: ...


def render_text(
    report: dict[str, Any],
    source: str | None = None,
    notice: str | None = None,
    *,
    players: Mapping[str, str] | None = None,
) -> str:
    """The report as text; ``notice`` is its first line (the service marks uploads with it).

    With the record's ``players``, the dealers and the sides are named as the score
    sheet of ``fairplay score`` names them, and a contract in the cayenne suit is
    marked ``(cayenne)`` as there."""
    return "\n".join(text_lines(report, source, notice, players=players)) + "\n"


def text_lines(
    report: dict[str, Any],
    source: str | None = None,
    notice: str | None = None,
    *,
    players: Mapping[str, str] | None = None,
    dealers: Collection[str] | None = None,
) -> Iterator[str]:
    """:func:`render_text`'s lines, one at a time (each without its line break), so a
    long report can be written as it is made. ``report["hands"]`` may be any
    :class:`ReportHands`; ``dealers``, the seats that dealt, saves a pass over them."""
    names = {k: v for k, v in (players or {}).items() if isinstance(v, str) and v}
    if notice:
        yield from (f"NOTICE: {notice}", "")
    title = f"Audit of {source}" if source else "Audit"
    findings = report["findings"]
    hands: ReportHands = report["hands"]
    errors = sum(1 for f in findings if f["severity"] == "error")
    lines: list[str] = []
    lines.append(
        f"{title}: {report['verdict'].upper()} "
        f"({len(hands)} hands, {errors} errors, {len(findings) - errors} other findings)"
    )
    if findings:
        lines.append("")
        lines.append("Findings:")
        for f in findings:
            where = []
            if f.get("hand") is not None:
                where.append(f"hand {f['hand']}")
            if f.get("trick") is not None:
                where.append(f"trick {f['trick']}")
            if f.get("seat") is not None:
                where.append(f["seat"])
            lines.append(
                f"  [{f['severity']:<7}] {f['code']:<22} {', '.join(where):<20} {f['message']}"
            )
            pointer = next_deal_pointer(f)
            if pointer:
                lines.append(f"  {'':<9} {'':<22} {'':<20} -> {pointer}")
    lines.append("")
    if names:
        lines.append("Players: " + ", ".join(f"{s} {names[s]}" for s in SEAT_BY_TEXT if s in names))
    seats = {h["dealer"] for h in hands} if dealers is None else dealers
    dw = max([6, *(len(_dealer(seat, names)) for seat in seats)])
    lines.append(
        f"{'Hand':>4}  {'Dealer':<{dw}}  {'Contract':<12}  {'Unit':>4}  {'Tricks':>6}  "
        f"{'Marker':>6}  {'Stacking p':>10}  Games"
    )
    yield from lines
    for h in hands:
        dealer = _dealer(h["dealer"], names)
        tricks = h["tricks"]
        t = f"{tricks['NS']}-{tricks['EW']}" if tricks else "-"
        score = h["score"]
        m = f"{score['points']['NS']}-{score['points']['EW']}" if score else "-"
        games = ", ".join(f"{g['side']} {g['value']}" for g in score["games"]) if score else ""
        bonuses = (
            ", ".join(f"{b['side']} {b['kind']} {b['points']}" for b in score["bonuses"])
            if score
            else ""
        )
        st = h.get("stacking")
        p = f"{st['p_value']:.3g}" if st else ""
        void = h.get("void")
        if void is not None:
            yield (
                f"{h['hand']:>4}  {dealer:<{dw}}  {'void':<12}  {'':>4}  {'':>6}  {'':>6}  "
                f"{p:>10}  {void_text(void)}"
            )
            continue
        contract = contract_label(h["contract"], h["unit"])
        yield (
            f"{h['hand']:>4}  {dealer:<{dw}}  {contract:<12}  {h['unit'] or '':>4}  "
            f"{t:>6}  {m:>6}  {p:>10}  {'; '.join(x for x in (games, bonuses) if x)}"
        )
    if "alpha" in report:
        yield ""
        yield (
            "Stacking p: the chance that a thorough shuffle deals a hand at least as "
            "structured as this one. " + alpha_note(report["alpha"]) + "."
        )
    yield from _explanations(hands)
    labels = {side.name: side_label(side, names) for side in Side}
    for i, r in enumerate(report["rubbers"], 1):
        yield from sheet_rows(i, r, labels)
        if r["winner"]:
            yield f"  {labels[r['winner']]} win the rubber; value {r['value']}"


def _dealer(seat: str, names: Mapping[str, str]) -> str:
    return f"{seat} ({names[seat]})" if seat in names else seat


def void_text(void: Mapping[str, Any]) -> str:
    """A voided deal in words: ``void (misdeal): ... the same dealer deals again``."""
    note = void.get("note")
    return (
        f"void ({str(void['reason']).replace('_', ' ')})"
        + (f": {note}" if note else "")
        + "; the same dealer deals again"
    )


def _explanations(hands: Iterable[dict[str, Any]]) -> Iterator[str]:
    """Each hand's score step by step, and its claim beside the true score."""
    yield from ("", "Scores explained:")
    for h in hands:
        if h.get("void") is not None:
            yield f"  Hand {h['hand']}: {void_text(h['void'])}; nothing is scored"
            continue
        tricks = h.get("tricks")
        head = f"  Hand {h['hand']}: {h['contract'] or 'no contract'}"
        if h.get("unit"):
            head += f", unit {h['unit']}"
        if tricks:
            head += f"; tricks N-S {tricks['NS']}, E-W {tricks['EW']}"
        yield head
        ended = ended_by_claim(h)
        if ended:
            yield f"    ({ended})"
        explanation = h.get("explanation")
        if explanation is None:
            yield "    - not scored: the hand cannot be replayed"
        for line in explanation or ():
            yield f"    - {line['reason']}"
        claim = claim_line(h)
        if claim:
            yield f"    {claim}"
