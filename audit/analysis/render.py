"""The analysis document for people: text for a terminal, a self-contained HTML page
(the same page the service shows once an event is over)."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["TABLE_CSS", "ordinal", "render_html", "render_section", "render_text"]

TABLE_CSS = (
    ".wide{overflow-x:auto;margin:.5rem 0 1.5rem}"
    "table{border-collapse:collapse}"
    "th,td{border:1px solid #505a5f;padding:.25rem .5rem;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".flag{font-weight:bold;color:#942514}"
    "@media (max-width:40rem){"
    ".wide table,.wide tbody,.wide tr,.wide th[scope=row],.wide td{display:block}"
    ".wide thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
    ".wide tr{border:1px solid #505a5f;margin:.4rem 0;padding:.2rem .4rem}"
    ".wide th[scope=row],.wide td{border:none;padding:.1rem 0;white-space:normal}"
    '.wide td[data-label]::before{content:attr(data-label) ": ";color:#505a5f}}'
)
"""The tables' style: on a phone each row is a block, each cell labelled by its column
(the page never scrolls sideways); on a wider screen a table too wide scrolls inside its
region."""
CSS = (
    "body{font-family:system-ui,sans-serif;margin:0;color:#0b0c0c;background:#fff}"
    "main{max-width:70rem;margin:0 auto;padding:1rem}" + TABLE_CSS
)


def _pct(rate: dict[str, Any] | None) -> str:
    if not rate or rate.get("rate") is None:
        return "-"
    lo, hi = rate["ci95"]
    return f"{100 * rate['rate']:.1f}% ({100 * lo:.0f}-{100 * hi:.0f}) of {rate['n']}"


def _p(value: float) -> str:
    return f"{value:.2g}" if value < 0.01 else f"{value:.3f}"


def _pair_rows(doc: dict[str, Any]) -> list[list[str]]:
    seen = _seen(doc)
    rows = []
    for p in doc["pairs"]:
        row = [
            " & ".join(p["players"]),
            str(p["boards"]),
            _pct(p["errors"]),
            _pct(p["field"]["errors"]),
            _pct(p["opening_leads"]),
            f"{p['found']} / {p['expected']:.1f} of {p['hidden_decisions']}",
        ]
        if seen:
            row.append(_seen_cell(p["seen"]["left"], p["seen"]["right"]))
        row += [_p(p["p_value"]), _p(p["p_adjusted"]), "FLAGGED" if p["flagged"] else "no"]
        rows.append(row)
    return rows


def _seen_cell(left: dict[str, Any], right: dict[str, Any]) -> str:
    if left["expected"] is None or right["expected"] is None:  # no field curve
        return f"{left['played']}, {right['played']} (too few field decisions to test)"
    return f"{left['played']} / {left['expected']:.1f}, {right['played']} / {right['expected']:.1f}"


def _seen(doc: dict[str, Any]) -> bool:
    return bool(doc["settings"].get("seen_draws"))


def _pair_head(doc: dict[str, Any]) -> list[str]:
    if not _seen(doc):
        return PAIR_HEAD
    return [*PAIR_HEAD[:6], SEEN_HEAD, *PAIR_HEAD[6:]]


PAIR_HEAD = [
    "Pair",
    "Boards",
    "Error rate (95% CI)",
    "Field on the same boards",
    "Opening leads best",
    "Best in hidden spots: found / expected",
    "p (one-sided)",
    "Holm-adjusted",
    "Flagged",
]
SEEN_HEAD = "Seen-hand card, left, right: played / expected"
PLAYER_HEAD = ["Player", "Boards", "Error rate (95% CI)", "Field", "Opening leads best"]


def _player_rows(doc: dict[str, Any]) -> list[list[str]]:
    return [
        [
            p["player"],
            str(p["boards"]),
            _pct(p["errors"]),
            _pct(p["field"]["errors"]),
            _pct(p["opening_leads"]),
        ]
        for p in doc["players"]
    ]


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``12th``, ``13th``, ``21st``."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _settings_line(doc: dict[str, Any]) -> str:
    s = doc["settings"]
    leads = "opening leads and " if s["opening_leads"] else ""
    return (
        f"{doc['hands']} hands, {doc['cards_judged']} cards judged ({leads}cards after the "
        f"{ordinal(s['from_card'])}), {s['samples']} deals drawn per decision; pairs flagged at "
        f"alpha {s['alpha']} after Holm's control over {len(doc['pairs'])} pairs"
    )


def render_text(doc: dict[str, Any]) -> str:
    lines = ["Double-dummy analysis", _settings_line(doc), ""]
    for title, head, rows in (
        ("Pairs", _pair_head(doc), _pair_rows(doc)),
        ("Players", PLAYER_HEAD, _player_rows(doc)),
    ):
        lines.append(title)
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        for r in [head, *rows]:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        lines.append("")
    for p in doc["pairs"]:
        if not p["flagged"]:
            continue
        lines.append(f"Evidence against {' & '.join(p['players'])}:")
        for e in p["evidence"]:
            f = e["field_in_such_spots"]
            lines.append(
                f"  {e['hand']} card {e['card']} {e['player']} ({e['seat']}) played {e['move']}: "
                f"best with chance {e['p_view']:.2f} from the view; the field found the best "
                f"card in such spots {_pct(f)}"
            )
        lines.append("")
    if doc["skipped"]:
        lines.append(f"{len(doc['skipped'])} hands not judged: " + "; ".join(doc["skipped"][:5]))
    return "\n".join(lines).rstrip() + "\n"


def _table(head: list[str], rows: list[list[str]], label: str) -> str:
    """A table in a region of its own that scrolls sideways (by keyboard too) when it is
    wider than the page; each cell names its column for the phone's layout."""
    out = [f'<div class="wide" role="region" tabindex="0" aria-label="{escape(label)}">']
    out += ["<table><thead><tr>", *(f'<th scope="col">{escape(h)}</th>' for h in head)]
    out.append("</tr></thead><tbody>")
    for r in rows:
        cells = [f'<th scope="row">{escape(r[0])}</th>']
        for h, c in zip(head[1:], r[1:], strict=True):
            cls = ' class="flag"' if c == "FLAGGED" else ""
            cells.append(f'<td{cls} data-label="{escape(h)}">{escape(c)}</td>')
        out += ["<tr>", *cells, "</tr>"]
    out.append("</tbody></table></div>")
    return "".join(out)


def render_section(doc: dict[str, Any], *, level: int = 2) -> str:
    """The analysis as HTML to put in a page, its headings at ``level`` (the service's
    page puts it under its own title)."""
    h = f"h{level}"
    parts = [
        f"<p>{escape(_settings_line(doc))}</p>",
        f"<{h}>Pairs</{h}>",
        _table(_pair_head(doc), _pair_rows(doc), "Pairs"),
        f"<{h}>Players</{h}>",
        _table(PLAYER_HEAD, _player_rows(doc), "Players"),
    ]
    for p in doc["pairs"]:
        if not p["flagged"] or not p["evidence"]:
            continue
        parts.append(f"<{h}>Evidence against {escape(' & '.join(p['players']))}</{h}>")
        rows = [
            [
                f"{e['hand']} card {e['card']}",
                f"{e['player']} ({e['seat']})",
                e["move"],
                f"{e['p_view']:.2f}",
                _pct(e["field_in_such_spots"]),
            ]
            for e in p["evidence"]
        ]
        parts.append(
            _table(
                ["Card", "Player", "Played", "Chance best from the view", "Field in such spots"],
                rows,
                f"Evidence against {' & '.join(p['players'])}",
            )
        )
    return "".join(parts)


def render_html(doc: dict[str, Any], *, title: str = "Double-dummy analysis") -> str:
    """A self-contained page (``fairplay analyse --format html``)."""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>"
        f"<h1>{escape(title)}</h1>{render_section(doc)}</main></body></html>\n"
    )
