/**
 * Metric curves from what the schema exposes: the series a run logged (`Run.metricSeries`,
 * downsampled by the service), and each checkpoint's metrics at its step.
 */

import type { Json, MetricSeries } from "../api/types";
import { asObject } from "./json";

export interface CurvePoint {
  step: number;
  [metric: string]: number;
}

/** Chart rows by step, a column per metric (absent where a metric has no value at a step). */
export interface Curves {
  points: CurvePoint[];
  metrics: string[];
}

function sortedRows(byStep: ReadonlyMap<number, CurvePoint>): CurvePoint[] {
  return [...byStep.values()].filter((p) => Object.keys(p).length > 1).sort((a, b) => a.step - b.step);
}

/** Points by step (one per checkpoint with a step), and the metric names found. */
export function metricCurves(checkpoints: readonly { step: number | null; metrics: Json }[]): Curves {
  const byStep = new Map<number, CurvePoint>();
  const names = new Set<string>();
  for (const checkpoint of checkpoints) {
    if (checkpoint.step == null) continue;
    const point = byStep.get(checkpoint.step) ?? { step: checkpoint.step };
    for (const [name, value] of Object.entries(asObject(checkpoint.metrics))) {
      if (typeof value === "number" && Number.isFinite(value)) {
        point[name] = value;
        names.add(name);
      }
    }
    byStep.set(checkpoint.step, point);
  }
  return { points: sortedRows(byStep), metrics: [...names].sort() };
}

/** The logged series overlaid: one row per step any of them has, a column per metric. */
export function seriesCurves(series: readonly MetricSeries[]): Curves {
  const byStep = new Map<number, CurvePoint>();
  const names = new Set<string>();
  for (const { name, points } of series) {
    for (const { step, value } of points) {
      if (!Number.isFinite(step) || !Number.isFinite(value)) continue;
      const row = byStep.get(step) ?? { step };
      row[name] = value;
      byStep.set(step, row);
      names.add(name);
    }
  }
  return { points: sortedRows(byStep), metrics: [...names].sort() };
}

/** How many points each metric of `curves` has, by name (in the order of `curves.metrics`). */
export function pointCounts(curves: Curves): Record<string, number> {
  return Object.fromEntries(curves.metrics.map((m) => [m, curves.points.filter((p) => m in p).length]));
}

/** `curves` without the metrics in `names` (those a logged series already draws). */
export function withoutMetrics(curves: Curves, names: Iterable<string>): Curves {
  const drop = new Set(names);
  const metrics = curves.metrics.filter((m) => !drop.has(m));
  const points = curves.points.map((p) => {
    const kept: CurvePoint = { step: p.step };
    for (const m of metrics) if (m in p) kept[m] = p[m];
    return kept;
  });
  return { points: points.filter((p) => Object.keys(p).length > 1), metrics };
}
