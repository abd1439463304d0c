"""Three readers of the contract give one answer: the service's models (`parse_event`, what the
ingest service runs), Python's jsonschema and ajv (npm: draft 2020-12 with ajv-formats, run by
node through schemas/ajv/validate.mjs with its default options), the last two on the committed
JSON Schemas as a producer in another language would use them.

They are asked about every example of schemas/examples; about variants of every valid example
with a space, a line break or a control character put into one of its texts (at the end, where
Python's `$` and ECMA 262's differ, at the start and inside); and about values at the edges of
the contract (calendar dates, leap seconds, offsets, UUID spellings, 64-bit integers). Each
pattern of the committed schemas is also read by Python's `re` and by ajv on the same strings.

ajv is installed from schemas/ajv/package-lock.json by `make test` (`npm ci`, target
`schemas-js`); the readers are in tests/support/contract_readers.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from support.contract_examples import (
    INVALID,
    MODEL_ONLY,
    ROOT,
    SCHEMA_DIR,
    VALID,
    load,
    schema_patterns,
)
from support.contract_readers import Where, ajv, get, texts, verdicts, with_value

from provgraph.schemas.events.model import ALLOWED_TRANSITIONS, ModelStatus
from provgraph.schemas.limits import INT64_MAX, INT64_MIN

VALID_DIR = ROOT / "schemas" / "examples" / "valid"

# What is put into a text: line breaks (where `$` differs), characters on which engines
# disagree about `\s` (\x1c, \x85, \ufeff), other spaces and controls.
AT_THE_END = ["\n", "\r", "\r\n", "\u2028", " ", "\t", "\x1c", "\x85", "\xa0", "\ufeff", "\x00"]
ELSEWHERE = ["\n", "\x85", "\ufeff"]


def where(path: Where) -> str:
    return ".".join(str(part) for part in path)


def numbers(node: Any) -> Iterator[int | float]:
    if isinstance(node, bool):
        return
    if isinstance(node, int | float):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from numbers(value)
    elif isinstance(node, list):
        for value in node:
            yield from numbers(value)


# ---- the examples ----------------------------------------------------------------------------


def test_every_example_gets_the_servers_answer_from_both_validators() -> None:
    paths = [*VALID, *INVALID]
    answers = verdicts([load(p) for p in paths])
    wrong = []
    for path, (server, python, js) in zip(paths, answers, strict=True):
        valid = path.parent.name == "valid"
        schema_says = valid or path.name in MODEL_ONLY
        if (server, python, js) != (valid, schema_says, schema_says):
            wrong.append(
                f"{path.parent.name}/{path.name}: server={server} jsonschema={python} ajv={js}"
            )
    assert wrong == []
    assert set(MODEL_ONLY) <= {p.name for p in INVALID}


def test_examples_hold_only_numbers_a_double_holds_exactly() -> None:
    # ajv reads JSON numbers as JavaScript does (IEEE doubles): an example with an integer a
    # double cannot hold (2**63 - 1, -2**63 - 1) would show ajv another number than Python.
    inexact = [
        f"{p.name}: {n}" for p in [*VALID, *INVALID] for n in numbers(load(p)) if float(n) != n
    ]
    assert inexact == []


# ---- variants of the valid examples ----------------------------------------------------------


def _variants() -> Iterator[tuple[str, dict[str, Any]]]:
    envelope_done = False
    for path in VALID:
        event = load(path)
        for at in texts(event):
            if len(at) == 1 and envelope_done:
                continue  # the envelope's texts are the same in every example: once is enough
            text = get(event, at)
            for extra in AT_THE_END:
                yield f"{path.name} {where(at)} + {extra!r}", with_value(event, at, text + extra)
            for extra in ELSEWHERE:
                yield f"{path.name} {extra!r} + {where(at)}", with_value(event, at, extra + text)
                inside = text[:1] + extra + text[1:]
                yield (
                    f"{path.name} {where(at)} with {extra!r} inside",
                    with_value(event, at, inside),
                )
        envelope_done = True


def test_variants_of_every_valid_example_get_one_answer() -> None:
    named = list(_variants())
    answers = verdicts([event for _, event in named])
    split = [f"{name}: {answer}" for (name, _), answer in zip(named, answers, strict=True)]
    disagreements = [s for s, a in zip(split, answers, strict=True) if len(set(a)) > 1]
    assert disagreements == [], "(server, jsonschema, ajv) differ:\n" + "\n".join(disagreements)
    refused = sum(1 for a in answers if not a[0])
    accepted = len(answers) - refused
    assert refused > 500 and accepted > 500, (refused, accepted)  # both kinds were asked


# ---- values at the edges of the contract -----------------------------------------------------

RUN_STARTED = "run.started.json"
EDGES: list[tuple[str, Where, Any, bool]] = [
    # timestamps: a real day and time of RFC 3339, within 1970..9999 in UTC
    (RUN_STARTED, ("occurred_at",), "2024-02-29T12:00:00Z", True),
    (RUN_STARTED, ("occurred_at",), "2023-02-29T12:00:00Z", False),
    (RUN_STARTED, ("occurred_at",), "2000-02-29T12:00:00Z", True),
    (RUN_STARTED, ("occurred_at",), "2100-02-29T12:00:00Z", False),
    (RUN_STARTED, ("occurred_at",), "1972-02-29T12:00:00Z", True),
    (RUN_STARTED, ("occurred_at",), "2024-04-31T12:00:00Z", False),
    (RUN_STARTED, ("occurred_at",), "2024-12-31T23:59:59.123456789z", True),
    (RUN_STARTED, ("occurred_at",), "2024-05-01t12:00:00-00:00", True),
    (RUN_STARTED, ("occurred_at",), "2024-05-01T24:00:00Z", False),
    (RUN_STARTED, ("occurred_at",), "2016-12-31T23:59:60Z", False),  # ajv-formats allows it
    (RUN_STARTED, ("occurred_at",), "2024-05-01T12:60:00Z", False),
    (RUN_STARTED, ("occurred_at",), "2024-05-01T12:00:00+05:60", False),
    (RUN_STARTED, ("occurred_at",), "2024-05-01T12:00:00+23:59", True),
    (RUN_STARTED, ("occurred_at",), "2024-05-01T12:00:00+24:00", False),
    (RUN_STARTED, ("occurred_at",), "2024-05-01 12:00:00Z", False),  # ajv-formats allows it
    (RUN_STARTED, ("occurred_at",), "2024-05-01T12:00:00", False),
    (RUN_STARTED, ("occurred_at",), "1970-01-01T00:00:00Z", True),
    (RUN_STARTED, ("occurred_at",), "1970-01-01T00:30:00+01:00", False),
    (RUN_STARTED, ("occurred_at",), "9999-12-31T23:59:59.999999Z", True),
    (RUN_STARTED, ("occurred_at",), "9999-12-31T23:00:00-01:00", False),
    # UUIDs: hyphenated hex only, either case
    (RUN_STARTED, ("event_id",), "5F1C2D3E-0000-4000-8000-0000000000AA", True),
    (RUN_STARTED, ("event_id",), "5f1c2d3e000040008000000000000aa1", False),
    (RUN_STARTED, ("event_id",), "urn:uuid:5f1c2d3e-0000-4000-8000-0000000000aa", False),
    (RUN_STARTED, ("event_id",), "{5f1c2d3e-0000-4000-8000-0000000000aa}", False),
    # integers within signed 64 bits, at the doubles next to the bounds
    (RUN_STARTED, ("payload", "run_number"), 2**63, False),
    (RUN_STARTED, ("payload", "run_number"), 2**63 - 1024, True),
    (RUN_STARTED, ("payload", "params", "seed"), INT64_MIN, True),
    (RUN_STARTED, ("payload", "params", "seed"), INT64_MIN - 2048, False),
    (RUN_STARTED, ("payload", "params", "seed"), 2**63 - 1024, True),
    (RUN_STARTED, ("payload", "params", "seed"), 2**63, False),
    (RUN_STARTED, ("payload", "params", "seed"), 0.5, True),
    (RUN_STARTED, ("payload", "params", "seed"), -1e-300, True),
    ("checkpoint.saved.json", ("payload", "step"), 10**18, False),  # the id holds 18 digits
    ("checkpoint.saved.json", ("payload", "step"), 10**18 - 128, True),
    # texts with spaces of one engine and not another
    (RUN_STARTED, ("producer",), "https://example.com/a\ufeffb", True),
    (RUN_STARTED, ("producer",), "https://example.com/a\x1cb", False),
    (RUN_STARTED, ("producer",), "https://example.com/a\x85b", False),
    (RUN_STARTED, ("producer",), "https://example.com/a\u3000b", False),
    ("access.granted.json", ("payload", "principal"), "user:ann\ufeff", True),
    ("access.granted.json", ("payload", "principal"), "user:ann\x85", False),
    ("access.granted.json", ("payload", "principal"), "user:ann\u2029", False),
]


def _edge_events() -> list[tuple[str, dict[str, Any], bool]]:
    out = []
    for name, at, value, valid in EDGES:
        event = with_value(load(VALID_DIR / name), at, value)
        if at == ("payload", "step") and valid:  # the subject names the step
            event["subject"] = f"checkpoint:{event['payload']['run_id']}/{value}"
        out.append((f"{name} {where(at)}={value!r}", event, valid))
    return out


def test_values_at_the_edges_of_the_contract_get_one_answer() -> None:
    cases = _edge_events()
    answers = verdicts([event for _, event, _ in cases])
    wrong = [
        f"{name}: expected {valid}, (server, jsonschema, ajv) = {answer}"
        for (name, _, valid), answer in zip(cases, answers, strict=True)
        if answer != (valid, valid, valid)
    ]
    assert wrong == []
    assert float(INT64_MAX) == 2**63  # why the top bound is exclusive: 2**63 - 1 is read as 2**63


def test_every_model_status_move_gets_one_answer() -> None:
    example = load(VALID_DIR / "model.version.status.changed.json")
    moves = [(a, b) for a in [None, *ModelStatus] for b in ModelStatus]
    events = [
        with_value(with_value(example, ("payload", "from_status"), a), ("payload", "to_status"), b)
        for a, b in moves
    ]
    allowed = [a is None or b in ALLOWED_TRANSITIONS[a] for a, b in moves]
    answers = verdicts(events)
    assert answers == [(ok, ok, ok) for ok in allowed]
    assert 0 < sum(allowed) < len(moves)


def test_a_float_beyond_64_bits_is_refused_by_the_schema_alone() -> None:
    # JSON Schema compares values, not spellings: 1e20 is the whole number 10**20 to it and is
    # refused like `100000000000000000000`; the service takes the float (docs/events.md says
    # so: the schema is the stricter of the two there, never the laxer).
    event = with_value(load(VALID_DIR / RUN_STARTED), ("payload", "params", "flops"), 1e20)
    assert verdicts([event]) == [(True, False, False)]


# ---- the patterns themselves -----------------------------------------------------------------


def test_every_pattern_of_the_schemas_reads_the_same_in_python_and_ecma_262() -> None:
    patterns = sorted(
        {p for path in SCHEMA_DIR.glob("*.json") for p in schema_patterns(load(path))}
    )
    seeds = sorted({get(load(p), at) for p in VALID for at in texts(load(p))})
    probes = sorted(
        {
            *seeds,
            *(s + extra for s in seeds for extra in AT_THE_END),
            *(s[:1] + extra + s[1:] for s in seeds for extra in ELSEWHERE),
            *(s.upper() for s in seeds),
            "",
            "\n",
        }
    )
    ecma = ajv({"patterns": patterns, "strings": probes})["patterns"]
    differ = [
        f"{pattern!r} on {probe!r}: python={python}"
        for pattern, row in zip(patterns, ecma, strict=True)
        for probe, js in zip(probes, row, strict=True)
        if (python := re.search(pattern, probe) is not None) != js
    ]
    assert differ == []
    unmatched = [p for p, row in zip(patterns, ecma, strict=True) if not any(row)]
    assert len(patterns) > 15 and unmatched == []  # every pattern was asked about a match
