/**
 * The words of the Scale-up page, as `provgraph scale-up` prints them (recipes/scale_up.py):
 * each run's resources, a change, the scale factor and a metric's trend.
 */
import type { MetricTrend, ScaleUpChange, ScaleUpRun } from "../api/types";
import { text } from "./json";

/** A number as the CLI's `cell` prints it: up to 6 significant digits, `-` for none. */
export function num(value: unknown): string {
  if (value == null) return "-";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
  return text(value);
}

/** `1 x 8 H100 = 8 (data 8)`, or `no resources recorded`. */
export function resourcesText(run: ScaleUpRun): string {
  const res = (run.resources ?? {}) as Record<string, unknown>;
  if (Object.keys(res).length === 0) return "no resources recorded";
  let head = `${num(res.num_nodes)} x ${num(res.devices_per_node)}`;
  if (res.accelerator) head += ` ${text(res.accelerator)}`;
  if (run.accelerators != null) head += ` = ${run.accelerators}`;
  const degrees = Object.keys(res)
    .filter((k) => k.startsWith("parallelism."))
    .sort()
    .map((k) => `${k.slice("parallelism.".length)} ${num(res[k])}`);
  return degrees.length ? `${head} (${degrees.join(", ")})` : head;
}

/** `resources num_nodes: 1 -> 8`, `param batch_size: 32 -> 128`. */
export function changeText(change: ScaleUpChange): string {
  return `${change.kind.toLowerCase()} ${change.name}: ${num(change.before)} -> ${num(change.after)}`;
}

/** `x8 accelerators`, or `unknown` without both runs' accelerators. */
export function factorText(factor: number | null | undefined): string {
  return factor == null ? "unknown" : `x${num(factor)} accelerators`;
}

/** `steps 100-400: pilot down -0.7, scale-up down -0.7`, or null without both trends. */
export function trendText(metric: MetricTrend): string | null {
  const p = metric.pilot.trend;
  const s = metric.scaleUp.trend;
  if (!metric.sharedSteps || !p || !s) return null;
  const steps = `steps ${metric.sharedSteps.start}-${metric.sharedSteps.end}`;
  return `${steps}: pilot ${p.direction} ${num(p.change)}, scale-up ${s.direction} ${num(s.change)}`;
}

/** `pilot 1.7 at step 400, scale-up 1.2 at step 1600`. */
export function finalText(metric: MetricTrend): string {
  const p = metric.pilot.final;
  const s = metric.scaleUp.final;
  return `pilot ${num(p.value)} at step ${p.step}, scale-up ${num(s.value)} at step ${s.step}`;
}
