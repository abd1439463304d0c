"""Any language: the example events, produced with kcat, read back through the contract."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from client_kafka_helpers import read_topic

EXAMPLES = Path(__file__).resolve().parents[3] / "schemas" / "examples" / "valid"


def kcat() -> str:
    path = shutil.which("kcat")
    if path is None:
        pytest.fail("kcat is not on PATH: install it (apt-get install -y kcat, or `make install`)")
    return path


def test_examples_produced_with_kcat_parse_and_are_keyed_by_subject(
    kafka_bootstrap: str, kafka_topic: str
) -> None:
    examples = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.json"))]
    assert len(examples) >= 20
    lines = "".join(f"{e['subject']}|{json.dumps(e, separators=(',', ':'))}\n" for e in examples)
    done = subprocess.run(
        [kcat(), "-P", "-b", kafka_bootstrap, "-t", kafka_topic, "-K|", "-X", "acks=all"],
        input=lines,
        text=True,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    received = read_topic(kafka_bootstrap, kafka_topic, expected=len(examples))
    assert len(received) == len(examples)
    for key, event in received:
        assert key == event.subject.encode()
    assert sorted(str(e.event_id) for _, e in received) == sorted(e["event_id"] for e in examples)
