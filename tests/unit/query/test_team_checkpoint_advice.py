"""The checkpoint advice on plain data; every expected value is worked out by hand below."""

from __future__ import annotations

import math
from typing import Any

import pytest

from provgraph.query.recipes.checkpoint_advice import (
    MIN_INTERRUPTIONS,
    advise,
    devices_of,
    render_advice,
)


def t(hhmm: str) -> str:
    return f"2026-03-02T{hhmm}:00.000000Z"


def ev(kind: str, hhmm: str) -> dict[str, Any]:
    return {"type": f"run.{kind}", "at": t(hhmm)}


def ckpt(step: int, hhmm: str, save: float | None) -> dict[str, Any]:
    return {"id": f"c{step}", "step": step, "saved_at": t(hhmm), "save_seconds": save}


# Run A, 2 nodes x 8 devices: starts 00:00, saves at 00:30 01:00 01:30, fails at 01:50 (20 min
# lost of a 110 min segment), resumes 02:00, saves 02:30, is aborted at 02:40 (10 min lost of 40).
RUN_A: dict[str, Any] = {
    "id": "run:a",
    "status": "aborted",
    "started_at": t("00:00"),
    "last_event_at": t("02:40"),
    "resources": {"num_nodes": 2, "devices_per_node": 8},
    "lifecycle": [ev("started", "00:00"), ev("failed", "01:50"), ev("resumed", "02:00"),
                  ev("aborted", "02:40")],
    "checkpoints": [ckpt(1000, "00:30", 60), ckpt(2000, "01:00", 90), ckpt(3000, "01:30", 120),
                    ckpt(4000, "02:30", 60)],
    "resumed_by": [],
}  # fmt: skip
# Run B, no resources: starts 03:00, saves 03:20, resumed at 04:00 with no end recorded (40 min
# lost of 60), saves 04:30, completes 05:00 (a 60 min segment, no interruption).
RUN_B: dict[str, Any] = {
    "id": "run:b",
    "status": "completed",
    "started_at": t("03:00"),
    "last_event_at": t("05:00"),
    "resources": None,
    "lifecycle": [ev("started", "03:00"), ev("resumed", "04:00"), ev("completed", "05:00")],
    "checkpoints": [ckpt(100, "03:20", None), ckpt(200, "04:30", 90)],
    "resumed_by": [],
}

EXPOSURE_S = (110 + 40 + 60 + 60) * 60  # 16200
MTBF_S = EXPOSURE_S / 3  # 5400
COST_S = 90.0  # median of 60, 90, 120, 60, 90
YOUNG_DALY_S = math.sqrt(2 * COST_S * MTBF_S)  # 985.90...
RULE_S = 1800 - COST_S
ELAPSED_S = (110 * 60, 40 * 60, 60 * 60)  # segment time at each interruption
DEVICES = (16, 16, None)


def _lost_with(interval: float) -> tuple[float, float]:
    lost = [e - interval * math.floor(e / interval) for e in ELAPSED_S]
    acc = sum(x / 3600 * d for x, d in zip(lost, DEVICES, strict=True) if d is not None)
    return sum(lost) / 3600, acc


def test_the_full_advice_from_a_hand_worked_story() -> None:
    report = advise([RUN_A, RUN_B], max_rework_s=1800)

    assert report["save_cost_s"] == COST_S and report["saves_measured"] == 5
    assert report["running_hours"] == pytest.approx(EXPOSURE_S / 3600)
    assert [
        (i["run"], i["at"], i["cause"], i["end_recorded"]) for i in report["interruptions"]
    ] == [
        ("run:a", t("01:50"), "failed", True),
        ("run:a", t("02:40"), "aborted", True),
        ("run:b", t("04:00"), "resumed without a recorded end", False),
    ]
    assert [i["lost_s"] for i in report["interruptions"]] == [1200, 600, 2400]
    assert report["mtbf_s"] == pytest.approx(MTBF_S)
    assert report["young_daly_s"] == pytest.approx(985.9006, abs=1e-3)
    assert report["rule_of_thumb_s"] == RULE_S == 1710
    assert report["advised_s"] == pytest.approx(YOUNG_DALY_S)
    # 00:30->01:00 and 01:00->01:30; 01:30->02:30 and 03:20->04:30 span an interruption.
    assert report["current"] == {"seconds": 1800, "steps": 1000, "intervals_measured": 2}

    current = report["lost"]["current"]
    assert current["hours"] == pytest.approx(70 / 60)
    assert current["accelerator_hours"] == pytest.approx(30 / 60 * 16)  # 8.0
    assert current["interruptions_without_resources"] == 1
    hours, acc = _lost_with(YOUNG_DALY_S)
    assert report["lost"]["advised"]["hours"] == pytest.approx(hours)
    assert report["lost"]["advised"]["accelerator_hours"] == pytest.approx(acc)
    assert acc == pytest.approx(4.9458, abs=1e-3)  # (684.60 + 428.20) s x 16 devices
    rule = report["lost"]["rule_of_thumb"]
    assert (rule["hours"], rule["accelerator_hours"]) == pytest.approx((0.65, 9.6))
    assert report["saving_hours"]["current"] == pytest.approx(6 * 90 / 3600)
    assert report["saving_hours"]["advised"] == pytest.approx(EXPOSURE_S / YOUNG_DALY_S * 90 / 3600)
    assert report["notes"] == []
    assert "advised: 16.4 min" in render_advice(report)


def test_too_few_interruptions_are_said_plainly() -> None:
    report = advise([RUN_B], max_rework_s=1800)
    assert len(report["interruptions"]) == 1 < MIN_INTERRUPTIONS
    assert report["mtbf_s"] is None and report["young_daly_s"] is None
    assert report["notes"] == [
        "too few interruptions to estimate MTBF: 1 recorded, at least 3 needed; no Young/Daly "
        "interval"
    ]
    # The rule of thumb needs no MTBF: it is still advised (1800 - median(90) s).
    assert report["advised_s"] == report["rule_of_thumb_s"] == 1710
    assert "too few interruptions" in render_advice(report)


def test_without_measured_saves_the_cost_is_unknown() -> None:
    unmeasured = [
        {**run, "checkpoints": [{**c, "save_seconds": None} for c in run["checkpoints"]]}
        for run in (RUN_A, RUN_B)
    ]
    report = advise(unmeasured, max_rework_s=600)
    assert report["save_cost_s"] is None and report["young_daly_s"] is None
    assert report["mtbf_s"] == pytest.approx(MTBF_S)
    assert report["rule_of_thumb_s"] == 600 and report["saving_hours"]["current"] is None
    assert any("save cost is unknown" in note for note in report["notes"])


def test_an_open_run_resumed_by_another_run_was_interrupted_at_its_last_event() -> None:
    hung = {
        "id": "run:hung",
        "status": "running",
        "started_at": t("06:00"),
        "last_event_at": t("07:15"),
        "resources": {"devices_per_node": 4},
        "lifecycle": [ev("started", "06:00")],
        "checkpoints": [ckpt(10, "07:00", 30)],
        "resumed_by": ["run:next"],
    }
    report = advise([hung])
    [cut] = report["interruptions"]
    assert (cut["cause"], cut["at"], cut["lost_s"], cut["devices"]) == (
        "resumed by another run",
        t("07:15"),
        900,
        4,
    )
    assert report["running_hours"] == pytest.approx(1.25)


def test_devices_need_devices_per_node() -> None:
    assert devices_of({"num_nodes": 4, "devices_per_node": 8}) == 32
    assert devices_of({"devices_per_node": 8}) == 8
    assert devices_of({"num_nodes": 4}) is None and devices_of(None) is None
