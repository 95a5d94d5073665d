"""The audit report as text, for a terminal."""

from __future__ import annotations

from typing import Any

from audit.explain import alpha_note
from audit.report_explain import claim_line, next_deal_pointer
from audit.sheet_text import sheet_rows


def render_text(
    report: dict[str, Any], source: str | None = None, notice: str | None = None
) -> str:
    """The report as text; ``notice`` is its first line (the service marks uploads with it)."""
    lines: list[str] = [f"NOTICE: {notice}", ""] if notice else []
    title = f"Audit of {source}" if source else "Audit"
    findings = report["findings"]
    errors = sum(1 for f in findings if f["severity"] == "error")
    lines.append(
        f"{title}: {report['verdict'].upper()} "
        f"({len(report['hands'])} hands, {errors} errors, {len(findings) - errors} other findings)"
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
    lines.append(
        f"{'Hand':>4}  {'Dealer':<6}  {'Contract':<8}  {'Unit':>4}  {'Tricks':>6}  {'Marker':>6}  "
        f"{'Stacking p':>10}  Games"
    )
    for h in report["hands"]:
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
        lines.append(
            f"{h['hand']:>4}  {h['dealer']:<6}  {h['contract'] or '-':<8}  {h['unit'] or '':>4}  "
            f"{t:>6}  {m:>6}  {p:>10}  {'; '.join(x for x in (games, bonuses) if x)}"
        )
    if "alpha" in report:
        lines.append("")
        lines.append(
            "Stacking p: the chance that a thorough shuffle deals a hand at least as "
            "structured as this one. " + alpha_note(report["alpha"]) + "."
        )
    lines += _explanations(report["hands"])
    for i, r in enumerate(report["rubbers"], 1):
        lines += sheet_rows(i, r, {"NS": "NS", "EW": "EW"})
        if r["winner"]:
            lines.append(f"  {r['winner']} win the rubber; value {r['value']}")
    return "\n".join(lines) + "\n"


def _explanations(hands: list[dict[str, Any]]) -> list[str]:
    """Each hand's score step by step, and its claim beside the true score."""
    out = ["", "Scores explained:"]
    for h in hands:
        tricks = h.get("tricks")
        head = f"  Hand {h['hand']}: {h['contract'] or 'no contract'}"
        if h.get("unit"):
            head += f", unit {h['unit']}"
        if tricks:
            head += f"; tricks N-S {tricks['NS']}, E-W {tricks['EW']}"
        out.append(head)
        explanation = h.get("explanation")
        if explanation is None:
            out.append("    - not scored: the hand cannot be replayed")
        for line in explanation or ():
            out.append(f"    - {line['reason']}")
        claim = claim_line(h)
        if claim:
            out.append(f"    {claim}")
    return out
