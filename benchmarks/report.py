"""Results: medians and percentiles, printed tables, JSON and PNG files in benchmarks/results/."""

from __future__ import annotations

import json
import os
import platform
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

RESULTS = Path(__file__).resolve().parent / "results"


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), nearest rank: honest for small samples."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return float(ordered[rank])


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else float("nan")


@dataclass
class Table:
    """One benchmark's result: rows for the table, extra data for JSON, a title."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    ratios: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, *row: Any) -> None:
        self.rows.append(list(row))

    def render(self) -> str:
        cells = [self.columns, *[[_cell(v) for v in r] for r in self.rows]]
        widths = [max(len(str(r[i])) for r in cells) for i in range(len(self.columns))]

        def line(row: list[str]) -> str:
            return (
                "| " + " | ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)) + " |"
            )

        out = [
            f"### {self.title}",
            "",
            line(cells[0]),
            "|" + "|".join("-" * (w + 2) for w in widths) + "|",
        ]
        out += [line(r) for r in cells[1:]]
        if self.ratios:
            out += ["", "ratios: " + ", ".join(f"{k} = {_cell(v)}" for k, v in self.ratios.items())]
        return "\n".join(out)

    def save(self, meta: dict[str, Any]) -> Path:
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / f"{self.name}.json"
        body = {
            "title": self.title,
            "meta": meta,
            "columns": self.columns,
            "rows": self.rows,
            "ratios": self.ratios,
            **self.extra,
        }
        path.write_text(json.dumps(body, indent=1, default=str) + "\n")
        (RESULTS / f"{self.name}.md").write_text(self.render() + "\n")
        return path


class PartFailed(RuntimeError):
    """A part failed after it measured (its check found a difference, say): what it measured
    is still written, beside the error, rather than lost with it."""

    def __init__(self, table: Table, cause: BaseException) -> None:
        super().__init__(f"{table.name}: {cause}")
        self.table = table


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if value >= 100:
            return f"{value:,.0f}"
        return f"{value:.3g}"
    return str(value)


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    import psutil

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "os": platform.platform(terse=True),
    }


def bar_plot(name: str, title: str, labels: list[str], values: list[float], unit: str) -> Path:
    """A horizontal bar chart (small PNG)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 0.45 * len(labels) + 1.2), dpi=80)
    ax.barh(labels, values, color="#4477aa")
    ax.set_xlabel(unit)
    ax.set_title(title, fontsize=10)
    ax.invert_yaxis()
    fig.tight_layout()
    path = RESULTS / f"{name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path


def line_plot(
    name: str,
    title: str,
    series: dict[str, tuple[list[float], list[float]]],
    xlabel: str,
    ylabel: str,
) -> Path:
    """Lines over x (small PNG)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=80)
    for label, (xs, ys) in series.items():
        ax.plot(xs, ys, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if len(series) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = RESULTS / f"{name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path
