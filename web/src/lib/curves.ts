/** Metric curves from what the schema exposes: each checkpoint's metrics at its step. */

import type { Json } from "../api/types";
import { asObject } from "./json";

export interface CurvePoint {
  step: number;
  [metric: string]: number;
}

/** Points by step (one per checkpoint with a step), and the metric names found. */
export function metricCurves(checkpoints: readonly { step: number | null; metrics: Json }[]): {
  points: CurvePoint[];
  metrics: string[];
} {
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
  const points = [...byStep.values()].filter((p) => Object.keys(p).length > 1).sort((a, b) => a.step - b.step);
  return { points, metrics: [...names].sort() };
}
