"""Canonical JSON (RFC 8785) and signed events: golden bytes, round trips, flipped bytes."""

from __future__ import annotations

import base64
import json
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.log.errors import EventError, LogSignatureInvalid
from audit.log.events import (
    canonical_json,
    check_event,
    event_hash,
    make_event,
    sign_event,
    verify_event,
)
from audit.log.keys import Signer, generate_signer

GOLDEN_EVENT = (
    '{"actor":"north","body":{"card":"AS","trick":1},"hand":"7",'
    '"key":"north+60150731+AQOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4",'
    '"origin":"fairplay.example/log","prev":null,"seq":0,'
    '"signature":"HVgkYyPzQO8KOIZfK6BEOWLStrgb42nX4YId1zekp3rBWsNLMubERgtI4yPK8xidoSat09vGAB3abSCvYDqCDg==",'
    '"table":"t1","type":"play","v":1}'
)


def test_rfc8785_key_order_is_by_utf16_code_units() -> None:
    # RFC 8785 section 3.2.3: the emoji (a surrogate pair) sorts before U+FB33
    obj = {"\u20ac": 1, "\r": 2, "\ufb33": 3, "1": 4, "\U0001f600": 5, "\u0080": 6, "\u00f6": 7}
    keys = list(json.loads(canonical_json(obj)).keys())
    assert keys == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


def test_rfc8785_string_escapes() -> None:
    # RFC 8785 section 3.2.2.2 example string
    value = "\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"/"
    assert canonical_json(value) == '"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"'.encode()
    assert canonical_json({"b": [1, True, None], "a": {"y": -5, "x": ""}}) == (
        b'{"a":{"x":"","y":-5},"b":[1,true,null]}'
    )


@pytest.mark.parametrize("bad", [1.5, float("nan"), 2**53, "\udc00", {1: 2}, b"x"])
def test_values_without_a_canonical_form_are_refused(bad: object) -> None:
    with pytest.raises(EventError):
        canonical_json({"v": bad})


def _read_only(value: Any) -> Any:
    """The same JSON value with every object a read-only mapping (not a dict)."""
    if isinstance(value, dict):
        return MappingProxyType({k: _read_only(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_read_only(v) for v in value]
    return value


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_every_mapping_has_the_one_canonical_form(value: Any) -> None:
    # plain dicts take the C encoder's path, other mappings the general one: same bytes
    raw = canonical_json({"v": value})
    assert raw == canonical_json(_read_only({"v": value}))
    assert json.loads(raw) == {"v": value}


def test_golden_signed_event() -> None:
    signer = Signer("north", bytes(range(32)))
    event = sign_event(
        make_event(
            origin="fairplay.example/log",
            table="t1",
            hand=7,
            seq=0,
            prev=None,
            actor="north",
            type="play",
            body={"card": "AS", "trick": 1},
        ),
        signer,
    )
    assert canonical_json(event).decode() == GOLDEN_EVENT
    assert event_hash(event) == "d0e54959e4da829a337a4ee7ab00d6be1811398ff2bd9a566da020bc893feb55"
    verify_event(json.loads(GOLDEN_EVENT), signer.verifier_key())
    with pytest.raises(LogSignatureInvalid):
        verify_event(event, generate_signer("north").verifier_key())


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seq", -1),
        ("seq", True),
        ("prev", "ab"),
        ("body", []),
        ("table", ""),
        ("v", 2),
        ("extra", 1),
    ],
)
def test_malformed_events_name_the_field(field: str, value: object) -> None:
    ev = make_event(
        origin="o", table="t", hand="h", seq=1, prev="0" * 64, actor="a", type="play", key="k"
    )
    ev[field] = value
    with pytest.raises(EventError, match=f"event.{field}"):
        check_event(ev, signed=False)


_signer = generate_signer("east")


@settings(max_examples=40, deadline=None)
@given(
    body=st.dictionaries(
        st.text(max_size=5), st.integers(-(2**53) + 1, 2**53 - 1) | st.text(), max_size=4
    ),
    data=st.data(),
)
def test_any_flipped_byte_of_a_signed_event_fails(
    body: dict[str, object], data: st.DataObject
) -> None:
    event = sign_event(
        make_event(
            origin="o.example",
            table="t",
            hand="h",
            seq=0,
            prev=None,
            actor="east",
            type="call",
            body=body,
        ),
        _signer,
    )
    raw = canonical_json(event)
    verify_event(json.loads(raw))
    pos = data.draw(st.integers(0, len(raw) - 1))
    bad = bytearray(raw)
    bad[pos] ^= 1 << data.draw(st.integers(0, 7))
    try:
        changed = json.loads(bytes(bad).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return  # not even JSON any more
    try:
        same = canonical_json(changed) == raw
    except EventError:
        same = False  # e.g. a digit flipped out of the I-JSON integer range
    if same:
        return  # e.g. a flipped bit inside a key's escape that decodes identically
    with pytest.raises((LogSignatureInvalid, EventError)):
        verify_event(changed)


def test_a_signature_rewritten_in_non_canonical_base64_is_refused() -> None:
    event = sign_event(
        make_event(
            origin="o.example",
            table="t",
            hand="h",
            seq=0,
            prev=None,
            actor="east",
            type="call",
            body={"call": "H"},
        ),
        _signer,
    )
    sig = event["signature"]
    assert sig.endswith("==")
    spare = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = spare.index(sig[-3])
    # the low four bits of the last character before "==" are padding: flip one
    forged = dict(event, signature=sig[:-3] + spare[last ^ 1] + "==")
    assert base64.b64decode(forged["signature"]) == base64.b64decode(sig)
    assert event_hash(forged) != event_hash(event)
    with pytest.raises(LogSignatureInvalid, match="canonical"):
        verify_event(forged)
