"""An event played over the table, scored over HTTP (``POST /v1/tournaments/scores``): the
same ``cayenne-standings/1`` document as ``fairplay tournament score``, from records sent
inline or uploaded a table at a time with ``POST /v1/audits``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from audit.cli import main
from tests.api.conftest import Running
from tests.tournament.events import round_robin_event
from tests.tournament.test_score_cli import hand_computed_mitchell, rr_hands, write


def cli_document(tmp_path: Path, records: list[dict[str, Any]], capsys: Any) -> dict[str, Any]:
    folder = write(tmp_path, records)
    status = main(["tournament", "score", str(folder), "--format", "json"])
    out = capsys.readouterr().out
    assert status in (0, 1)
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_inline_and_uploaded_records_give_the_cli_standings(
    make_service: Any, backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service: Running = make_service(backend)
    records = hand_computed_mitchell()
    expected = cli_document(tmp_path, records, capsys)
    client = service.client(admin=False)
    inline = client.call("POST", "/v1/tournaments/scores", {"records": records})
    assert inline == expected
    assert inline["standings"][0]["pair"] == ["North3", "South3"]
    # A table at a time: each record uploaded (audited, unlisted), then the event by ids,
    # in another order, mixed with an inline record: the same document.
    ids = [client.call("POST", "/v1/audits", r)["id"] for r in records[1:]]
    mixed = [*reversed(ids), records[0]]
    assert client.call("POST", "/v1/tournaments/scores", {"records": mixed}) == expected
    html = client.raw(
        "POST", "/v1/tournaments/scores", {"records": records}, headers={"Accept": "text/html"}
    )
    assert html[0] == 200 and b"North3" in html[2] and b"<html" in html[2].lower()
    text = client.raw(
        "POST", "/v1/tournaments/scores", {"records": records}, headers={"Accept": "text/plain"}
    )
    assert text[0] == 200 and "North3" in text[2].decode()


def test_a_round_robin_over_http(service: Running, tmp_path: Path, capsys: Any) -> None:
    records = round_robin_event(5, rr_hands)
    expected = cli_document(tmp_path, records, capsys)
    got = service.client().call("POST", "/v1/tournaments/scores", {"records": records})
    assert got == expected and got["kind"] == "rubber-round-robin" and got["matches"]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({}, "records"),
        ({"records": []}, "records"),
        ({"records": "u-1"}, "records"),
        ({"records": [7]}, "records[0]"),
        ({"records": ["u-" + "0" * 32]}, "records[0]"),
        ({"records": ["../etc/passwd"]}, "records[0]"),
    ],
)
def test_a_malformed_request_names_the_field(
    service: Running, body: dict[str, Any], path: str
) -> None:
    status, _headers, raw = service.client().raw("POST", "/v1/tournaments/scores", body)
    assert status == 400
    err = json.loads(raw)
    assert err["details"]["path"] == path and err["message"].startswith(path)


def test_records_of_two_events_are_refused_naming_the_record(service: Running) -> None:
    records = hand_computed_mitchell()
    other = copy.deepcopy(records[2])
    other["event"] = "Another Event"
    status, _h, raw = service.client().raw(
        "POST", "/v1/tournaments/scores", {"records": [*records[:2], other]}
    )
    assert status == 422
    err = json.loads(raw)
    assert "records[2]" in err["message"] and "event" in err["message"]


def test_scoring_counts_against_the_upload_rate(make_service: Any) -> None:
    service: Running = make_service(upload_burst=1, upload_per_hour=1)
    records = hand_computed_mitchell()
    stranger = service.client(admin=False)
    assert stranger.raw("POST", "/v1/tournaments/scores", {"records": records})[0] == 200
    status, headers, raw = stranger.raw("POST", "/v1/tournaments/scores", {"records": records})
    assert status == 429 and json.loads(raw)["code"] == "TOO_MANY_REQUESTS"
    assert int(headers["retry-after"]) > 0
    # The administrator is not limited.
    admin = service.client()
    body = {"records": records}
    assert admin.raw("POST", "/v1/tournaments/scores", body, headers=admin.admin())[0] == 200
