"""The one-pass loader never accepts what the schema rejects, and agrees on what both accept."""

from __future__ import annotations

import contextlib
import copy
import random
from typing import Any

import fastjsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.codec import _load_checked, _validator
from audit.record.fastload import fast_load
from audit.record.generate import random_record

from .helpers import worked_example

BASE = worked_example()
BASE["hands"][0]["penalties"] = [{"trick": 3, "seat": "N", "option": "add"}]
BASE["ruleset"] = {"deal_pattern": [4, 4, 5], "seven_is": "double"}
BASE["cut"] = {"N": "2S", "E": "KH", "S": "TD", "W": "AC"}
BASE["start"]["sheet"] = {"NS": [2], "EW": [0]}
BASE["round"] = 2
BASE["hands"][1]["board"] = 4

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [
            "AS",
            "10H",
            "XS",
            "N",
            "Q",
            "NS",
            "pass",
            "grand",
            "tricks",
            "rubber",
            "",
            "x-y",
            "single",
            "cayenne-record/1",
            "AS\n",
        ]
    ),
    st.lists(st.sampled_from(["AS", "2C", "N", 3]), max_size=3),
    st.dictionaries(
        st.sampled_from(["NS", "EW", "N", "x-a", "bad"]), st.integers(0, 12), max_size=3
    ),
)


def paths(obj: Any, prefix: tuple[Any, ...] = (), limit: int | None = 3) -> list[tuple[Any, ...]]:
    """Every path into ``obj``, into the first ``limit`` items of each list (all: ``None``)."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, prefix + (k,), limit)
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:limit]):
            out += paths(v, prefix + (i,), limit)
    return out


ALL_PATHS = [p for p in paths(BASE) if p]


def mutate(doc: Any, path: tuple[Any, ...], action: str, value: Any, key: str) -> None:
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    last = path[-1]
    if action == "set":
        parent[last] = value
    elif action == "delete":
        del parent[last]
    elif action == "add" and isinstance(parent[last], dict):
        parent[last][key] = value
    elif action == "add" and isinstance(parent[last], list):
        parent[last].append(value)


def schema_accepts(doc: Any) -> bool:
    try:
        _validator()(doc)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


@settings(max_examples=1500, deadline=None)
@given(
    muts=st.lists(
        st.tuples(
            st.sampled_from(ALL_PATHS),
            st.sampled_from(["set", "delete", "add"]),
            values,
            st.sampled_from(
                ["x-ext", "N", "NS", "bogus", "deal_pattern", "games", "board", "round"]
            ),
        ),
        min_size=1,
        max_size=2,
    )
)
def test_fast_path_is_never_looser_than_the_schema(muts: list[Any]) -> None:
    doc = copy.deepcopy(BASE)
    for path, action, value, key in muts:
        with contextlib.suppress(KeyError, IndexError, TypeError):
            mutate(doc, path, action, value, key)
    fast = fast_load(doc)
    if fast is not None:
        assert schema_accepts(doc), doc
        assert fast == _load_checked(doc)


def test_fast_path_takes_every_valid_generated_record() -> None:
    rng = random.Random(7)
    for _ in range(20):
        doc = random_record(rng, 10)
        fast = fast_load(doc)
        assert fast is not None and fast == _load_checked(doc)
    assert fast_load(BASE) == _load_checked(BASE)
