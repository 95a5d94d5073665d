"""shuffle/schema.json is a valid JSON Schema and agrees with the parser."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from shuffle import SCHEMA_PATH
from shuffle.errors import ShuffleFormatError

from .test_vectors import DOC

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_schema_is_valid() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("v", DOC["vectors"], ids=[v["name"] for v in DOC["vectors"]])
def test_vectors_validate(v: dict[str, Any]) -> None:
    VALIDATOR.validate(v["transcript"])
    with_extra = dict(v["transcript"], **{"x-producer": {"any": "thing"}})
    VALIDATOR.validate(with_extra)


@pytest.mark.parametrize(
    "case",
    [c for c in DOC["must_fail"] if c["code"] == "SHUFFLE_INVALID"],
    ids=lambda c: c["name"],
)
def test_malformed_vectors_fail_the_schema_too(case: dict[str, Any]) -> None:
    assert not VALIDATOR.is_valid(case["transcript"])
    with pytest.raises(ShuffleFormatError):
        from shuffle.verify import verify_transcript

        verify_transcript(case["transcript"])


def test_partial_transcript_before_reveals_is_schema_valid() -> None:
    t = json.loads(json.dumps(DOC["vectors"][0]["transcript"]))
    del t["server"]["seed"], t["deal_number"], t["cayenne"]
    for seat in "NESW":
        del t["seats"][seat]["seed"]
    VALIDATOR.validate(t)
