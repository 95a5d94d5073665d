"""Parsing a record pauses the cyclic garbage collector, and gives it back as it was."""

from __future__ import annotations

import gc

import pytest

from audit.errors import RecordError
from audit.record.codec import collector_paused, parse_json_text


def test_the_collector_is_off_while_parsing_and_restored_after() -> None:
    seen: list[bool] = []
    with collector_paused():
        seen.append(gc.isenabled())
    assert seen == [False] and gc.isenabled()
    assert parse_json_text(b'{"hands": []}') == {"hands": []} and gc.isenabled()


def test_the_collector_is_restored_after_a_syntax_error() -> None:
    with pytest.raises(RecordError, match="line 1 column"):
        parse_json_text(b'{"hands": [}')
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        parse_json_text(b"[1, 2]")
        assert not gc.isenabled()
    finally:
        gc.enable()
