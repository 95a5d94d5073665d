"""The analysis document for people: text for a terminal, a self-contained HTML page
(the same page the service shows once an event is over)."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["render_html", "render_text"]

CSS = (
    "body{font-family:system-ui,sans-serif;margin:0;color:#0b0c0c;background:#fff}"
    "main{max-width:70rem;margin:0 auto;padding:1rem}"
    "table{border-collapse:collapse;margin:.5rem 0 1.5rem;display:block;overflow-x:auto}"
    "th,td{border:1px solid #505a5f;padding:.25rem .5rem;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".flag{font-weight:bold;color:#942514}"
)


def _pct(rate: dict[str, Any] | None) -> str:
    if not rate or rate.get("rate") is None:
        return "-"
    lo, hi = rate["ci95"]
    return f"{100 * rate['rate']:.1f}% ({100 * lo:.0f}-{100 * hi:.0f}) of {rate['n']}"


def _p(value: float) -> str:
    return f"{value:.2g}" if value < 0.01 else f"{value:.3f}"


def _pair_rows(doc: dict[str, Any]) -> list[list[str]]:
    return [
        [
            " & ".join(p["players"]),
            str(p["boards"]),
            _pct(p["errors"]),
            _pct(p["field"]["errors"]),
            _pct(p["opening_leads"]),
            f"{p['found']} / {p['expected']:.1f} of {p['hidden_decisions']}",
            _p(p["p_value"]),
            _p(p["p_adjusted"]),
            "FLAGGED" if p["flagged"] else "no",
        ]
        for p in doc["pairs"]
    ]


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


def _settings_line(doc: dict[str, Any]) -> str:
    s = doc["settings"]
    leads = "opening leads and " if s["opening_leads"] else ""
    return (
        f"{doc['hands']} hands, {doc['cards_judged']} cards judged ({leads}cards after the "
        f"{s['from_card']}th), {s['samples']} deals drawn per decision; pairs flagged at "
        f"alpha {s['alpha']} after Holm's control over {len(doc['pairs'])} pairs"
    )


def render_text(doc: dict[str, Any]) -> str:
    lines = ["Double-dummy analysis", _settings_line(doc), ""]
    for title, head, rows in (
        ("Pairs", PAIR_HEAD, _pair_rows(doc)),
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


def _table(head: list[str], rows: list[list[str]]) -> str:
    out = ["<table><thead><tr>", *(f'<th scope="col">{escape(h)}</th>' for h in head)]
    out.append("</tr></thead><tbody>")
    for r in rows:
        cells = [f'<th scope="row">{escape(r[0])}</th>']
        for c in r[1:]:
            cls = ' class="flag"' if c == "FLAGGED" else ""
            cells.append(f"<td{cls}>{escape(c)}</td>")
        out += ["<tr>", *cells, "</tr>"]
    out.append("</tbody></table>")
    return "".join(out)


def render_html(doc: dict[str, Any], *, title: str = "Double-dummy analysis") -> str:
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>",
        f"<h1>{escape(title)}</h1>",
        f"<p>{escape(_settings_line(doc))}</p>",
        "<h2>Pairs</h2>",
        _table(PAIR_HEAD, _pair_rows(doc)),
        "<h2>Players</h2>",
        _table(PLAYER_HEAD, _player_rows(doc)),
    ]
    for p in doc["pairs"]:
        if not p["flagged"] or not p["evidence"]:
            continue
        parts.append(f"<h2>Evidence against {escape(' & '.join(p['players']))}</h2>")
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
            )
        )
    parts.append("</main></body></html>\n")
    return "".join(parts)
