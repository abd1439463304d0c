"""Regular expressions that mean the same to the service and to every JSON Schema validator.

A JSON Schema ``pattern`` is an ECMA 262 regular expression, searched for in the string. Each
validator runs it on its own engine: Python's ``re`` (jsonschema), JavaScript's (ajv), Java's,
.NET's, PCRE ... The contract's patterns keep to what all of them read alike:

- No bare ``$`` at the end: ECMA 262 matches it only at the very end, while Python, PCRE and
  .NET also match before a final newline (``"run:r1\\n"``) and Java before any final line
  terminator. Every pattern ends with `END`, a lookahead that no character follows
  (``(?![\\s\\S])``), which is the very end in every engine that has lookahead.
- No ``\\s``, ``\\d`` or ``\\w``: each engine has its own spaces and digits (Python counts
  ``\\x1c``-``\\x1f`` and ``\\x85`` as spaces, ECMA 262 counts ``\\ufeff``). Classes are spelled
  out; `SPACE` lists the characters Python's ``str.isspace`` calls spaces.
- Only escapes every engine knows (``\\t``, ``\\n``, ``\\v``, ``\\f``, ``\\r``, ``\\xHH``,
  ``\\uHHHH`` and escaped punctuation); lookahead, but no lookbehind, named groups or flags.

The service checks a value with `matches`: ``re.search``, exactly as Python's jsonschema does,
on the very pattern the JSON Schema publishes (pydantic ``Field(pattern=...)`` does the same,
the contract's models being set to ``regex_engine="python-re"``).
"""

from __future__ import annotations

import re
from functools import lru_cache

END = r"(?![\s\S])"
"""Nothing follows: the very end of the string, in every engine that has lookahead."""

SPACE = r"\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The characters Python's ``str.isspace`` (and so its ``\\s``) calls spaces, spelled out for a
character class (``[^{SPACE}]``)."""


def whole(body: str) -> str:
    """A pattern matching a string exactly when `body` matches all of it (``^(?:body)END``)."""
    return f"^(?:{body}){END}"


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def matches(pattern: str, value: str) -> bool:
    """Whether `value` satisfies the JSON Schema ``pattern`` (searched, as validators do)."""
    return _compiled(pattern).search(value) is not None


# ---- timestamps ------------------------------------------------------------------------------
# RFC 3339 with a timezone, the date a real day of the Gregorian calendar, within the contract's
# range (1970-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999Z once in UTC, see `limits`).

_TIME = r"[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
_HM = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]"
_OFFSET = rf"(?:[Zz]|[+-]{_HM})"
_YEAR = r"(?:19[7-9][0-9]|[2-9][0-9]{3})"
_MONTH_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    r"|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
# Leap years from 1970: every fourth year, and of the centuries those divisible by 400.
_LEAP_YEAR = (
    r"(?:19(?:7[26]|8[048]|9[26])"
    r"|[2-9][0-9](?:0[48]|[2468][048]|[13579][26])"
    r"|(?:[2468][048]|[3579][26])00)"
)
_DATE = rf"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"

RFC3339_RE = whole(rf"[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}{_TIME}{_OFFSET}")
"""The shape of a timestamp: RFC 3339 with a timezone (the calendar is checked after it)."""

TIMESTAMP_RE = whole(
    # On the first and the last day only offsets that keep the instant inside the range (an
    # offset is less than 24 hours); on every other day any offset.
    rf"(?!1970-01-01|9999-12-31){_DATE}{_TIME}{_OFFSET}"
    rf"|1970-01-01{_TIME}(?:[Zz]|\+00:00|-{_HM})"
    rf"|9999-12-31{_TIME}(?:[Zz]|-00:00|\+{_HM})"
)
"""A timestamp the contract accepts: the generated JSON Schema's pattern, exactly the
service's rule (RFC 3339 shape, a real date and time, the range)."""
