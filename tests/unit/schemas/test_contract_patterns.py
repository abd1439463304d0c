"""The contract's regular expressions read the same in every engine (provgraph.schemas.patterns),
and the timestamp pattern is exactly the service's rule. ajv's reading of the same patterns is
compared in tests/integration/contract/test_contract_validators.py."""

from __future__ import annotations

import json
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError
from support.contract_examples import schema_patterns

from provgraph.schemas.envelope import UtcDatetime
from provgraph.schemas.jsonschema_gen import SCHEMA_DIR
from provgraph.schemas.patterns import SPACE, TIMESTAMP_RE, matches, whole

pytestmark = pytest.mark.unit

_TIME = TypeAdapter(UtcDatetime)


PATTERNS = sorted(
    {p for path in SCHEMA_DIR.glob("*.json") for p in schema_patterns(json.loads(path.read_text()))}
)


def test_space_is_every_character_python_calls_a_space() -> None:
    spaces = re.compile(f"[{SPACE}]")
    chars = (chr(c) for c in range(sys.maxunicode + 1))
    assert {c for c in chars if spaces.fullmatch(c)} == {
        chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()
    }


def test_a_whole_pattern_refuses_anything_after_the_match() -> None:
    pattern = whole("run:[a-z0-9]+")
    assert matches(pattern, "run:r1")
    for tail in ["\n", "\r", "\r\n", "\u2028", "\x85", " ", "!"]:
        assert not matches(pattern, "run:r1" + tail), repr(tail)
    assert re.search("^run:[a-z0-9]+$", "run:r1\n")  # what a bare `$` lets through in Python


@pytest.mark.parametrize("construct", ["$", r"\s", r"\d", r"\w", r"\b", r"\Z", r"\z", "(?<", "(?i"])
def test_no_pattern_of_the_schemas_uses_what_engines_read_differently(construct: str) -> None:
    assert len(PATTERNS) > 15
    used = [p for p in PATTERNS if construct in p.replace(r"[\s\S]", "")]
    assert used == []


def test_every_anchored_pattern_ends_where_the_string_ends() -> None:
    anchored = [p for p in PATTERNS if p.startswith("^")]
    assert anchored and all(p.endswith(r"(?![\s\S])") for p in anchored)


def _service_accepts(text: str) -> bool:
    try:
        _TIME.validate_python(text)
    except ValidationError:
        return False
    return True


_two = st.integers(0, 99).map(lambda n: f"{n:02d}")
_year = st.sampled_from(["1969", "1970", "1972", "1900", "2000", "2024", "2100", "9996", "9999"])
_year |= st.integers(1970, 9999).map(str)
_offset = st.sampled_from(["Z", "z", "+00:00", "-00:00"]) | st.builds(
    lambda sign, h, m: f"{sign}{h}:{m}", st.sampled_from("+-"), _two, _two
)
_stamps = st.builds(
    lambda y, mo, d, sep, h, mi, s, frac, off: f"{y}-{mo}-{d}{sep}{h}:{mi}:{s}{frac}{off}",
    _year,
    st.integers(0, 13).map(lambda n: f"{n:02d}"),
    st.integers(0, 32).map(lambda n: f"{n:02d}"),
    st.sampled_from(["T", "t", " "]),
    st.integers(0, 25).map(lambda n: f"{n:02d}"),
    st.integers(0, 61).map(lambda n: f"{n:02d}"),
    st.integers(0, 61).map(lambda n: f"{n:02d}"),
    st.sampled_from(["", ".5", ".123456789", "."]),
    _offset,
)


@settings(max_examples=1500, deadline=None)
@given(_stamps)
def test_the_timestamp_pattern_is_the_services_rule(text: str) -> None:
    assert matches(TIMESTAMP_RE, text) == _service_accepts(text), text


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2024-02-29T00:00:00Z", True),
        ("2023-02-29T00:00:00Z", False),
        ("2000-02-29T00:00:00Z", True),
        ("2100-02-29T00:00:00Z", False),
        ("1972-02-29T00:00:00Z", True),
        ("9996-02-29T00:00:00Z", True),
        ("2024-04-31T00:00:00Z", False),
        ("2024-12-31T23:59:59Z", True),
        ("2024-12-31T23:59:60Z", False),
        ("2024-12-31T12:00:00+05:60", False),
        ("2024-12-31T12:00:00+23:59", True),
        ("1970-01-01T00:00:00Z", True),
        ("1970-01-01T00:00:00-00:00", True),
        ("1970-01-01T00:00:00+00:01", False),
        ("9999-12-31T23:59:59.999999999Z", True),
        ("9999-12-31T00:00:00+00:00", True),
        ("9999-12-31T00:00:00-00:01", False),
        ("2024-05-01T12:00:00Z\n", False),
    ],
)
def test_the_timestamp_pattern_on_the_calendars_edges(text: str, valid: bool) -> None:
    assert matches(TIMESTAMP_RE, text) is valid
    assert _service_accepts(text) is valid
