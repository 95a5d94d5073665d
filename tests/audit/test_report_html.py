"""The HTML report is rendered from Jinja templates with autoescaping: text from a record
(event, player names, a void deal's note) reaches the page as text, never as markup."""

from __future__ import annotations

from audit.auditor import audit_document
from audit.report.html import render_html
from tests.audit.helpers import worked_example

HOSTILE = "<script>alert(1)</script>"


def test_hostile_record_text_is_escaped_in_the_html_report() -> None:
    doc = worked_example()
    doc["event"] = HOSTILE
    doc["players"]["N"] = f"O'Brien {HOSTILE}"
    html = render_html(audit_document(doc), doc, notice=f"uploaded {HOSTILE}")
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>" in html
    assert "N O&#39;Brien &lt;script&gt;" in html  # the seat's heading in the deal diagram


def test_report_draws_the_shared_diagram_and_trick_table() -> None:
    doc = worked_example()
    html = render_html(audit_document(doc), doc)
    assert html.startswith("<!doctype html>") and html.endswith("</html>")
    assert html.count('data-role="deal-diagram"') == len(doc["hands"])
    assert html.count('<table class="tricks">') == len(doc["hands"])
    assert '<span class="card h red">' in html and "\u2665" in html


def test_one_hand_is_one_hand_and_a_page_can_link_back() -> None:
    doc = worked_example()
    doc["hands"] = doc["hands"][:1]
    html = render_html(audit_document(doc), doc, back=("/", "home"))
    assert " 1 hand, " in html and "1 hands" not in html
    assert '<p data-role="back"><a href="/">home</a></p>' in html
    assert 'data-role="back"' not in render_html(audit_document(doc), doc)  # the CLI's: none
