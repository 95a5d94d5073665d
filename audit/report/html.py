"""The audit report as a self-contained HTML page, for people.

A summary, the findings linking to their hand, and for each hand the deal as a
four-hand diagram, the cayenne card and the contract, the tricks in order with the
leader and the winner marked and irregular cards highlighted, the gathering, and the
score sheet in the book's layout. Inline CSS only: the page fetches nothing.
"""

from __future__ import annotations

from html import escape
from typing import Any

from audit.record.codec import load_record
from audit.record.model import HandRecord, Record
from audit.report.explain import claim_agrees, claim_line, next_deal_pointer, score_words
from audit.rules.cards import RANK_LETTERS, SUIT_OF, SUIT_SYMBOLS, Seat
from audit.rules.explain import alpha_note
from audit.rules.replay import replay_hand

SUIT_CLASS = ("s", "h", "d", "c")

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:1.5rem}
h1{margin:.2rem 0}.verdict{display:inline-block;padding:.2rem .7rem;border-radius:1rem;font-weight:700}
.clean{background:#d8f3dc;color:#1b4332}.irregular{background:#ffd6d6;color:#7a0000}
table{border-collapse:collapse;margin:.5rem 0;background:#fff}td,th{border:1px solid #d0d5dc;padding:.25rem .5rem;text-align:left}
th{background:#eef1f4}.sev-error{color:#a00000;font-weight:700}.sev-warning{color:#8a5a00}.sev-info{color:#555}
section.hand{background:#fff;border:1px solid #d0d5dc;border-radius:.5rem;padding:1rem;margin:1rem 0}
.diagram{display:grid;grid-template-columns:repeat(3,minmax(9rem,1fr));grid-template-rows:auto auto auto;gap:.4rem;max-width:36rem}
.seat{border:1px solid #d0d5dc;border-radius:.4rem;padding:.3rem .5rem;background:#fbfcfd}
.seat h4{margin:0 0 .2rem 0;font-size:.9rem}.seat-N{grid-column:2;grid-row:1}.seat-W{grid-column:1;grid-row:2}
.seat-E{grid-column:3;grid-row:2}.seat-S{grid-column:2;grid-row:3}.table-centre{grid-column:2;grid-row:2;text-align:center;align-self:center}
.h,.d{color:#c1121f}.s,.c{color:#111}.card{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:nowrap}
td.lead{box-shadow:inset 3px 0 0 #457b9d}td.win{background:#e9f5ec;font-weight:700}td.irregular{background:#ffe1e1;outline:2px solid #c1121f}
.sheet td{min-width:1.6rem;text-align:right}.muted{color:#666}a{color:#1d4ed8}
.notice{border:2px solid #b45309;background:#fffbeb;padding:.5rem .75rem}
"""


def _card(c: int) -> str:
    s = SUIT_OF[c]
    return f'<span class="card {SUIT_CLASS[s]}">{RANK_LETTERS[c % 13]}{SUIT_SYMBOLS[s]}</span>'


def _holding(cards: tuple[int, ...]) -> str:
    rows = []
    for s in range(4):
        ranks = sorted((c for c in cards if SUIT_OF[c] == s), key=lambda c: -(c % 13))
        text = " ".join(RANK_LETTERS[c % 13] for c in ranks) or "\u2014"
        rows.append(f'<div><span class="{SUIT_CLASS[s]}">{SUIT_SYMBOLS[s]}</span> {text}</div>')
    return "".join(rows)


def _diagram(hand: HandRecord, names: dict[str, str]) -> str:
    parts = ['<div class="diagram" data-role="deal-diagram">']
    for seat in Seat:
        who = escape(names.get(seat.name, ""))
        dealer = " (dealer)" if seat == hand.dealer else ""
        parts.append(
            f'<div class="seat seat-{seat.name}"><h4>{seat.name}{" " + who if who else ""}{dealer}</h4>'
            f"{_holding(hand.deal[seat])}</div>"
        )
    cayenne = "" if hand.cayenne is None else f"cayenne {_card(hand.cayenne)}"
    parts.append(f'<div class="table-centre">{cayenne}</div></div>')
    return "".join(parts)


def _tricks(hand: HandRecord, winners: list[str], marks: set[tuple[int, str]]) -> str:
    rows = [
        '<table class="tricks"><tr><th>Trick</th><th>N</th><th>E</th><th>S</th><th>W</th><th>Won by</th></tr>'
    ]
    for i, t in enumerate(hand.tricks):
        n = i + 1
        cells: dict[str, str] = {}
        for k, c in enumerate(t.cards):
            seat = Seat((t.leader + k) & 3).name
            cls = []
            if k == 0:
                cls.append("lead")
            if i < len(winners) and winners[i] == seat:
                cls.append("win")
            if (n, seat) in marks:
                cls.append("irregular")
            high = " (high)" if t.ace_high and c in t.ace_high else ""
            back = "".join(
                f' <span class="muted" data-role="corrected">(took back {_card(x.card)})</span>'
                for x in t.corrected
                if x.seat.name == seat
            )
            cells[seat] = f'<td class="{" ".join(cls)}">{_card(c)}{high}{back}</td>'
        row = "".join(cells.get(s.name, "<td></td>") for s in Seat)
        won = winners[i] if i < len(winners) else "?"
        rows.append(
            f'<tr id="hand-{hand.number}-trick-{n}"><td>{n} <span class="muted">led by '
            f"{t.leader.name}</span></td>{row}<td>{won}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _sheet(rubber: dict[str, Any], labels: dict[str, str]) -> str:
    width = max(len(rubber["sheet"]["NS"]), len(rubber["sheet"]["EW"]))
    rows = ['<table class="sheet" data-role="score-sheet">']
    for side in ("NS", "EW"):
        entries = rubber["sheet"][side] + [""] * (width - len(rubber["sheet"][side]))
        cells = "".join(f"<td>{v}</td>" for v in entries)
        rows.append(
            f"<tr><th>{escape(labels[side])}</th>{cells}<td><b>= {rubber['totals'][side]}</b></td></tr>"
        )
    rows.append("</table>")
    if rubber["winner"]:
        rows.append(
            f"<p>{escape(labels[rubber['winner']])} win the rubber; its value is "
            f"<b>{rubber['value']}</b>.</p>"
        )
    else:
        rows.append('<p class="muted">Rubber unfinished.</p>')
    return "".join(rows)


def _pointer(finding: dict[str, Any]) -> str:
    """A TRICKS_OUT_OF_ORDER finding's link to the next deal's stacking test, or nothing."""
    pointer = next_deal_pointer(finding)
    if pointer is None:
        return ""
    nxt = finding["evidence"]["next_deal"]
    anchor = f"hand-{nxt['hand']}" + ("-stacking" if nxt.get("stacking") else "")
    return f' <a href="#{anchor}" data-role="next-deal">{escape(pointer)}</a>'


def _explanation(info: dict[str, Any]) -> str:
    """The hand's score step by step, then the claim beside the true score."""
    explanation = info.get("explanation")
    score = info.get("score")
    parts = ['<div data-role="explanation"><h4>Score</h4>']
    if explanation is None:
        parts.append('<p class="muted">Not scored: the hand cannot be replayed.</p>')
    else:
        parts.append("<ol>")
        parts += [f"<li>{escape(line['reason'])}</li>" for line in explanation]
        parts.append("</ol>")
    if score:
        parts.append(f"<p>After the hand, by the rules: {escape(score_words(score))}.</p>")
    claim = claim_line(info)
    if claim:
        cls = "" if claim_agrees(info) else ' class="sev-error"'
        parts.append(f'<p data-role="claim"{cls}>{escape(claim[0].upper() + claim[1:])}.</p>')
    parts.append("</div>")
    return "".join(parts)


def render_html(
    report: dict[str, Any], doc: Any, title: str | None = None, notice: str | None = None
) -> str:
    """The report as one HTML page; ``doc`` is the audited record (JSON or typed).

    ``notice`` is shown first, in a box (the service marks uploaded records with it)."""
    record = doc if isinstance(doc, Record) else load_record(doc)
    names = dict(record.players or {})
    labels = {
        "NS": "N-S" + (f" ({names.get('N', '')}, {names.get('S', '')})" if names else ""),
        "EW": "E-W" + (f" ({names.get('E', '')}, {names.get('W', '')})" if names else ""),
    }
    findings = report["findings"]
    by_hand: dict[int, list[dict[str, Any]]] = {}
    for f in findings:
        if f.get("hand") is not None:
            by_hand.setdefault(f["hand"], []).append(f)
    heading = escape(title or str(record.meta.get("event") or "Cayenne audit report"))
    out = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{heading}</title>"
        f'<meta name=viewport content="width=device-width,initial-scale=1"><style>{CSS}</style></head><body><main>'
    ]
    if notice:
        out.append(f'<p class="notice" data-role="notice"><b>{escape(notice)}</b></p>')
    out.append(f"<h1>{heading}</h1>")
    errors = sum(1 for f in findings if f["severity"] == "error")
    out.append(
        f'<p><span class="verdict {report["verdict"]}" data-role="verdict">{report["verdict"]}</span> '
        f"{len(report['hands'])} hands, {errors} error{'s' if errors != 1 else ''}, {len(findings) - errors} other finding{'s' if len(findings) - errors != 1 else ''} "
        + (
            f'<span class="muted" data-role="alpha">({escape(alpha_note(report["alpha"]))})</span>'
            if "alpha" in report
            else ""
        )
        + "</p>"
    )
    out.append("<h2>Findings</h2>")
    if findings:
        out.append(
            '<table data-role="findings"><tr><th>Severity</th><th>Code</th><th>Where</th><th>Message</th></tr>'
        )
        for f in findings:
            where = ""
            if f.get("hand") is not None:
                anchor = f"hand-{f['hand']}" + (f"-trick-{f['trick']}" if f.get("trick") else "")
                where = (
                    f'<a href="#{anchor}">hand {f["hand"]}'
                    + (f", trick {f['trick']}" if f.get("trick") else "")
                    + "</a>"
                )
            if f.get("seat"):
                where += f" {f['seat']}"
            out.append(
                f'<tr><td class="sev-{f["severity"]}">{f["severity"]}</td><td>{f["code"]}</td>'
                f"<td>{where}</td><td>{escape(f['message'])}{_pointer(f)}</td></tr>"
            )
        out.append("</table>")
    else:
        out.append(
            "<p>No findings: every deal, call, play, gathering and score follows the rules.</p>"
        )
    out.append("<h2>Score sheet</h2>")
    for i, rubber in enumerate(report["rubbers"], 1):
        out.append(f"<h3>Rubber {i}</h3>{_sheet(rubber, labels)}")
    out.append("<h2>Hands</h2>")
    for hand, info in zip(record.hands, report["hands"], strict=True):
        n = hand.number
        marks = {
            (f["trick"], f["seat"]) for f in by_hand.get(n, []) if f.get("trick") and f.get("seat")
        }
        contract = info["contract"] or "none"
        calls = ", ".join(f"{s.name}: {escape(c)}" for s, c in hand.calls)
        out.append(f'<section class="hand" id="hand-{n}"><h3>Hand {n}</h3>')
        if hand.void is not None:
            note = f": {escape(hand.void.note)}" if hand.void.note else ""
            out.append(
                f'<p data-role="void">Dealer {hand.dealer.name}. <b>Void deal</b> '
                f"({escape(hand.void.reason.replace('_', ' '))}{note}): not played nor scored; "
                f"the same dealer deals again with the same pack.</p>"
            )
            if any(hand.deal):
                out.append(_diagram(hand, names))
        else:
            cayenne = "none" if hand.cayenne is None else _card(hand.cayenne)
            out.append(
                f"<p>Dealer {hand.dealer.name}; cayenne {cayenne}; calls {calls}; contract "
                f"<b>{escape(contract)}</b>"
                + (f" (unit {info['unit']})" if info["unit"] else "")
                + "</p>"
            )
            out.append(_diagram(hand, names))
        winners = [w.name for w in replay_hand(hand).winners]
        if hand.tricks:
            out.append("<h4>Tricks</h4>" + _tricks(hand, winners, marks))
        if hand.gathered is not None:
            out.append(
                f"<p>Gathered: N-S {list(hand.gathered[0])}, E-W {list(hand.gathered[1])}</p>"
            )
        if hand.collected is not None:
            out.append(
                "<p>Collected pack (top first): "
                + " ".join(_card(c) for c in hand.collected)
                + "</p>"
            )
        if info.get("tricks"):
            out.append(f"<p>Tricks: N-S {info['tricks']['NS']}, E-W {info['tricks']['EW']}.</p>")
        out.append(_explanation(info))
        st = info.get("stacking")
        if st:
            out.append(
                f'<p id="hand-{n}-stacking" data-role="stacking">Stacking test against hand '
                f"{st.get('reference_hand', '?')}: p = {st['p_value']:.3g} "
                f"({escape(str(st.get('method', '')))})</p>"
            )
        for f in by_hand.get(n, []):
            out.append(
                f'<p class="sev-{f["severity"]}">{f["code"]}: {escape(f["message"])}{_pointer(f)}</p>'
            )
        out.append("</section>")
    out.append(
        f'<p class="muted">{escape(report["format"])} \u00b7 Cayenne Fair-Play</p></main></body></html>'
    )
    return "".join(out)
