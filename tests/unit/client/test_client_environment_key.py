"""The SDK's environment key is a digest of everything its snapshot records: a recorded
environment is read-only, so one key must never stand for two contents."""

from __future__ import annotations

import pytest

from provgraph.client.environment import GpuInfo, Snapshot, snapshot_payload

pytestmark = pytest.mark.unit


def _snapshot(hostname: str = "node-1", numpy: str = "1.26.4") -> Snapshot:
    packages = {"numpy": numpy, "torch": "2.3.0"}
    return Snapshot("3.11.8", packages, hostname, GpuInfo(("H100",), "550.54.15"))


def test_the_same_snapshot_gets_the_same_key() -> None:
    assert snapshot_payload(_snapshot()).key == snapshot_payload(_snapshot()).key


@pytest.mark.parametrize("other", [_snapshot(hostname="node-2"), _snapshot(numpy="2.0.0")])
def test_any_recorded_difference_gets_another_key(other: Snapshot) -> None:
    first, second = snapshot_payload(_snapshot()), snapshot_payload(other)
    assert first.key.startswith("pyenv-") and second.key.startswith("pyenv-")
    assert first.key != second.key
