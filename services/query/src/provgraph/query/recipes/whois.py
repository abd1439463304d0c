"""whois: hash a local file (streamed, with progress) and tell what it is and where it came from.

Checksums read `<algorithm>:<hex>`, the form the events carry (`sha256:ab12...`).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from provgraph.query.read.model import Lineage, NodeView
from provgraph.schemas.graph import Rel

CHUNK_SIZE = 1 << 20
# Files smaller than this hash in well under a second: no progress line for them.
PROGRESS_MIN_BYTES = 64 << 20

Progress = Callable[[int, int], None]


def hash_file(
    path: str | Path,
    algorithm: str = "sha256",
    *,
    chunk_size: int = CHUNK_SIZE,
    progress: Progress | None = None,
) -> str:
    """`<algorithm>:<hex>` of the file, read in chunks (memory stays flat for any size);
    `progress(done, total)` is called after each chunk."""
    try:
        digest = hashlib.new(algorithm)
    except ValueError as exc:
        raise ValueError(f"unknown hash algorithm {algorithm!r}") from exc
    source = Path(path)
    total = source.stat().st_size
    done = 0
    with source.open("rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
    return f"{algorithm}:{digest.hexdigest()}"


class ProgressLine:
    """A progress callback that rewrites one terminal line, at most a few times a second, and
    only for large files."""

    def __init__(
        self, stream: TextIO = sys.stderr, min_bytes: int = PROGRESS_MIN_BYTES, every_s: float = 0.2
    ) -> None:
        self.stream = stream
        self.min_bytes = min_bytes
        self.every_s = every_s
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if total < self.min_bytes:
            return
        now = time.monotonic()
        if done < total and now - self._last < self.every_s:
            return
        self._last = now
        end = "\n" if done >= total else ""
        self.stream.write(f"\rhashing {done / total:6.1%} of {total / 2**20:,.0f} MiB{end}")
        self.stream.flush()


def _node_brief(node: NodeView, depth: int | None = None) -> dict[str, Any]:
    brief: dict[str, Any] = {"id": node.id, "type": node.type}
    for key in ("name", "version", "step", "status", "uri", "storage_uri", "checksum"):
        if node.props.get(key) is not None:
            brief[key] = node.props[key]
    if node.placeholder:
        brief["placeholder"] = True
    if depth is not None:
        brief["depth"] = depth
    return brief


def _match_report(match: NodeView, lineage: Lineage | None) -> dict[str, Any]:
    report = _node_brief(match)
    if lineage is None:
        report.update(produced_by=[], upstream=[], truncated=False)
        return report
    by_id = {n.id: n for n in lineage.nodes}
    makers = sorted(
        e.dst for e in lineage.edges if e.src == match.id and e.type == Rel.GENERATED_BY
    )
    report["produced_by"] = [_node_brief(by_id[m]) for m in makers if m in by_id]
    upstream = [n for n in lineage.nodes if n.id != match.id]
    upstream.sort(key=lambda n: (lineage.depths.get(n.id, 0), n.type, n.id))
    report["upstream"] = [_node_brief(n, lineage.depths.get(n.id)) for n in upstream]
    report["truncated"] = lineage.truncated
    return report


def whois_report(
    path: str,
    checksum: str,
    matches: Sequence[NodeView],
    upstream: Mapping[str, Lineage | None],
) -> dict[str, Any]:
    """The answer for one file: the artifacts it matched, the run(s) that made each, and each
    one's upstream chain (from `upstream[match.id]`)."""
    ordered = sorted(matches, key=lambda m: (m.type, m.id))
    return {
        "path": path,
        "checksum": checksum,
        "found": bool(ordered),
        "matches": [_match_report(m, upstream.get(m.id)) for m in ordered],
    }


def render_whois(report: Mapping[str, Any]) -> str:
    """The report as text for people."""
    lines = [f"{report['path']}  {report['checksum']}"]
    if not report["found"]:
        lines.append("no dataset version, checkpoint or model version has this checksum")
    for match in report["matches"]:
        lines.append(f"is {_brief_text(match)}")
        for run in match["produced_by"]:
            lines.append(f"  produced by {_brief_text(run)}")
        for node in match["upstream"]:
            lines.append(f"  {'  ' * max(node.get('depth', 1) - 1, 0)}↑ {_brief_text(node)}")
        if match["truncated"]:
            lines.append("  … upstream truncated: a depth or node limit was reached")
    return "\n".join(lines)


def _brief_text(brief: Mapping[str, Any]) -> str:
    details = [
        f"step {brief[k]}" if k == "step" else str(brief[k])
        for k in ("name", "version", "step", "status")
        if k in brief
    ]
    text = f"{brief['type']} {brief['id']}"
    return text + (f" ({' '.join(details)})" if details else "")
