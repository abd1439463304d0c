"""whois: streamed file hashing, progress, and the report built from matches and lineage."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest

from provgraph.query.read.model import EdgeView, Lineage, NodeView
from provgraph.query.recipes.whois import ProgressLine, hash_file, render_whois, whois_report


def test_hash_is_streamed_in_chunks_with_progress(tmp_path: Path) -> None:
    data = bytes(range(256)) * 1000  # 256,000 bytes
    path = tmp_path / "weights.bin"
    path.write_bytes(data)
    calls: list[tuple[int, int]] = []

    checksum = hash_file(path, chunk_size=100_000, progress=lambda d, t: calls.append((d, t)))

    assert checksum == "sha256:" + hashlib.sha256(data).hexdigest()
    assert calls == [(100_000, 256_000), (200_000, 256_000), (256_000, 256_000)]


def test_other_algorithms_and_empty_files(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.write_bytes(b"")
    assert hash_file(path) == "sha256:" + hashlib.sha256(b"").hexdigest()
    assert hash_file(path, "md5") == "md5:d41d8cd98f00b204e9800998ecf8427e"
    with pytest.raises(ValueError, match="unknown hash algorithm"):
        hash_file(path, "nope")
    with pytest.raises(FileNotFoundError):
        hash_file(tmp_path / "absent")


def test_progress_line_only_for_large_files() -> None:
    out = io.StringIO()
    ProgressLine(out, min_bytes=1000)(500, 999)
    assert out.getvalue() == ""
    line = ProgressLine(out, min_bytes=1000, every_s=0)
    line(1 << 20, 2 << 20)
    line(2 << 20, 2 << 20)
    assert out.getvalue() == "\rhashing  50.0% of 2 MiB\rhashing 100.0% of 2 MiB\n"


def _node(node_id: str, type_: str, **props: object) -> NodeView:
    return NodeView(node_id, type_, "p", None, None, None, False, props)


def test_report_names_the_artifact_its_run_and_upstream_chain() -> None:
    ckpt = _node("checkpoint:r/100", "Checkpoint", step=100, checksum="sha256:aa")
    run = _node("run:r", "Run", name="train", status="completed")
    data = _node("dataset:p/d@v1", "DatasetVersion", name="d", version="v1")
    lineage = Lineage(
        ckpt,
        (ckpt, run, data),
        {ckpt.id: 0, run.id: 1, data.id: 2},
        (EdgeView(ckpt.id, run.id, "GENERATED_BY"), EdgeView(run.id, data.id, "USED")),
        False,
    )

    report = whois_report("/tmp/x.bin", "sha256:aa", [ckpt], {ckpt.id: lineage})

    assert report == {
        "path": "/tmp/x.bin",
        "checksum": "sha256:aa",
        "found": True,
        "matches": [
            {
                "id": ckpt.id,
                "type": "Checkpoint",
                "step": 100,
                "checksum": "sha256:aa",
                "produced_by": [
                    {"id": "run:r", "type": "Run", "name": "train", "status": "completed"}
                ],
                "upstream": [
                    {
                        "id": "run:r",
                        "type": "Run",
                        "name": "train",
                        "status": "completed",
                        "depth": 1,
                    },
                    {
                        "id": data.id,
                        "type": "DatasetVersion",
                        "name": "d",
                        "version": "v1",
                        "depth": 2,
                    },
                ],
                "truncated": False,
            }
        ],
    }
    assert render_whois(report).splitlines() == [
        "/tmp/x.bin  sha256:aa",
        "is Checkpoint checkpoint:r/100 (step 100)",
        "  produced by Run run:r (train completed)",
        "  ↑ Run run:r (train completed)",
        "    ↑ DatasetVersion dataset:p/d@v1 (d v1)",
    ]


def test_report_of_an_unknown_file() -> None:
    report = whois_report("f", "sha256:00", [], {})
    assert report == {"path": "f", "checksum": "sha256:00", "found": False, "matches": []}
    assert "no dataset version" in render_whois(report)
