"""The standings document (``cayenne-standings/1``) as text for a director, and as a
self-contained HTML page (inline CSS, fetches nothing)."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["CSS", "KIND_TITLE", "render_html", "render_text"]

KIND_TITLE = {"pairs-duplicate": "Pairs duplicate", "rubber-round-robin": "Rubber round robin"}


def _pair(p: list[str]) -> str:
    return f"{p[0]} & {p[1]}"


def _num(x: float | int | None) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return f"{x:g}"


def _where(f: dict[str, Any]) -> str:
    if f.get("round") is None:
        return "event"
    hand = f" hand {f['hand']}" if f.get("hand") is not None else ""
    return f"round {f['round']} table {f['table']}{hand}"


def render_text(doc: dict[str, Any]) -> str:
    lines = [
        f"{doc['event']}: {KIND_TITLE.get(doc['kind'], doc['kind'])} ({doc['verdict']})",
        "",
    ]
    duplicate = doc["kind"] == "pairs-duplicate"
    fields = ["NS", "EW"] if duplicate else [None]
    for field in fields:
        rows = [s for s in doc["standings"] if s["field"] == field]
        if duplicate:
            lines.append(f"{field} field")
        width = max([len(_pair(s["pair"])) for s in rows] + [4])
        head = "Matchpoints      %" if duplicate else "Match value"
        lines.append(f"  {'Place':<6} {'Pair':<{width}}  {head}")
        for s in rows:
            tail = (
                f"{_num(s['score']):>11}  {s['percentage']:6.2f}"
                if duplicate
                else f"{s['score']:>11}"
            )
            lines.append(f"  {s['place']:<6} {_pair(s['pair']):<{width}}  {tail}")
        lines.append("")
    for b in doc["boards"]:
        lines.append(f"Board {b['board']} (top {_num(b['top'])})")
        for r in b["results"]:
            score = (
                f"{r['ns_score']:>5}"
                if r["ns_score"] is not None
                else f"{r['adjusted']['ns']}/{r['adjusted']['ew']}"
            )
            lines.append(
                f"  round {r['round']} table {r['table']:<3} {_pair(r['ns'])} v {_pair(r['ew'])}"
                f"  NS {score}  MP {_num(r['ns_matchpoints'])} - {_num(r['ew_matchpoints'])}"
            )
        lines.append("")
    for m in doc.get("matches", []):
        lines.append(
            f"round {m['round']} table {m['table']:<3} {_pair(m['ns'])} v {_pair(m['ew'])}: "
            f"NS {m['ns_value']:+d} over {m['hands']} hands"
        )
    if doc.get("matches"):
        lines.append("")
    findings = doc["findings"]
    lines.append(f"Findings: {len(findings) or 'none'}")
    for f in findings:
        lines.append(f"  {f['severity']:<7} {f['code']:<22} {_where(f)}: {f['message']}")
    return "\n".join(lines) + "\n"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
main{max-width:1000px;margin:0 auto;padding:1.5rem}h1{margin:.2rem 0}
.verdict{display:inline-block;padding:.2rem .7rem;border-radius:1rem;font-weight:700}
.clean{background:#d8f3dc;color:#1b4332}.irregular{background:#ffd6d6;color:#7a0000}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;background:#fff}
td,th{border:1px solid #d0d5dc;padding:.25rem .6rem;text-align:left}th{background:#eef1f4}
td.n{text-align:right;font-variant-numeric:tabular-nums}.sev-error{color:#a00000;font-weight:700}
.sev-warning{color:#8a5a00}
"""


def _table(head: list[str], rows: list[list[str]], numeric: set[int]) -> str:
    out = ["<table><tr>", *(f"<th>{escape(h)}</th>" for h in head), "</tr>"]
    for row in rows:
        cells = (
            f'<td class="n">{escape(c)}</td>' if i in numeric else f"<td>{escape(c)}</td>"
            for i, c in enumerate(row)
        )
        out += ["<tr>", *cells, "</tr>"]
    out.append("</table>")
    return "".join(out)


def render_html(doc: dict[str, Any]) -> str:
    title = f"{doc['event']}: {KIND_TITLE.get(doc['kind'], doc['kind'])}"
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>",
        f"<h1>{escape(title)}</h1>",
        f'<p><span class="verdict {escape(doc["verdict"])}">{escape(doc["verdict"])}</span></p>',
    ]
    duplicate = doc["kind"] == "pairs-duplicate"
    for field in ["NS", "EW"] if duplicate else [None]:
        rows = [s for s in doc["standings"] if s["field"] == field]
        parts.append(f"<h2>{field} field</h2>" if duplicate else "<h2>Standings</h2>")
        if duplicate:
            body = [
                [s["place"], _pair(s["pair"]), _num(s["score"]), f"{s['percentage']:.2f}"]
                for s in rows
            ]
            parts.append(_table(["Place", "Pair", "Matchpoints", "%"], body, {2, 3}))
        else:
            body = [[s["place"], _pair(s["pair"]), str(s["score"])] for s in rows]
            parts.append(_table(["Place", "Pair", "Match value"], body, {2}))
    if doc["boards"]:
        parts.append("<h2>Travelling score sheets</h2>")
    for b in doc["boards"]:
        parts.append(f"<h3 id=board-{b['board']}>Board {b['board']}</h3>")
        body = [
            [
                str(r["round"]),
                r["table"],
                _pair(r["ns"]),
                _pair(r["ew"]),
                str(r["ns_score"]) if r["ns_score"] is not None else r["adjusted"]["ns"],
                _num(r["ns_matchpoints"]),
                _num(r["ew_matchpoints"]),
            ]
            for r in b["results"]
        ]
        parts.append(
            _table(["Round", "Table", "NS", "EW", "NS score", "NS MP", "EW MP"], body, {4, 5, 6})
        )
    if doc.get("matches"):
        parts.append("<h2>Matches</h2>")
        body = [
            [
                str(m["round"]),
                m["table"],
                _pair(m["ns"]),
                _pair(m["ew"]),
                str(m["hands"]),
                f"{m['ns_value']:+d}",
            ]
            for m in doc["matches"]
        ]
        parts.append(_table(["Round", "Table", "NS", "EW", "Hands", "NS value"], body, {4, 5}))
    parts.append("<h2>Findings</h2>")
    if not doc["findings"]:
        parts.append("<p>None.</p>")
    else:
        parts.append("<table><tr><th>Severity</th><th>Code</th><th>Where</th><th>Message</th></tr>")
        for f in doc["findings"]:
            parts.append(
                f'<tr><td class="sev-{escape(f["severity"])}">{escape(f["severity"])}</td>'
                f"<td>{escape(f['code'])}</td><td>{escape(_where(f))}</td>"
                f"<td>{escape(f['message'])}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</main></body></html>\n")
    return "".join(parts)
