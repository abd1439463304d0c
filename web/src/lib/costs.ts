/**
 * The cost page's texts as `provgraph cost` prints them (`recipes/cost.py`: `render_cost`).
 * (Not `api/cost.ts`, which estimates what a GraphQL document costs the service.)
 */

import type { BaseShare, CostAnswer, CostGain, CostTotals, RunCost } from "../api/types";
import { text } from "./json";

const UNITS = ["B", "kB", "MB", "GB", "TB"];

/** A number of bytes in decimal units, three significant digits: `4 GB`, `1.5 MB`, `512 B`. */
export function sizeText(bytes: number): string {
  let value = bytes;
  for (const unit of UNITS) {
    if (value < 1000 || unit === "TB") return unit === "B" ? `${bytes} B` : `${Number(value.toPrecision(3))} ${unit}`;
    value /= 1000;
  }
  return `${bytes} B`;
}

/**
 * A run's checkpoint storage: the sizes its checkpoints recorded (`—` for none), how many
 * recorded no size, and `≥` when the run had more checkpoints than were read.
 */
export function checkpointsText(run: Pick<RunCost, "checkpointBytes" | "checkpointsWithoutSize" | "checkpointsCapped">): string {
  const parts = [];
  if (run.checkpointBytes) parts.push(sizeText(run.checkpointBytes));
  if (run.checkpointsWithoutSize) parts.push(`${run.checkpointsWithoutSize} without a size`);
  if (!parts.length) return "—";
  return `${run.checkpointsCapped ? "≥ " : ""}${parts.join(", ")}`;
}

function runs(n: number): string {
  return `${n} run${n === 1 ? "" : "s"}`;
}

/** `accelerator-hours: 24: producing run 16 (1 run), failed attempt 8 (1 run)`. */
export function acceleratorHoursText(totals: Pick<CostTotals, "acceleratorHours" | "byRole">): string {
  const roles = totals.byRole.map((r) => `${r.role} ${text(r.acceleratorHours)} (${runs(r.runs)})`).join(", ");
  return `accelerator-hours: ${text(totals.acceleratorHours)}${roles ? `: ${roles}` : ""}`;
}

/** `lost to interruptions: 4 accelerator-hours (0.5 hours)`. */
export function lostText(totals: Pick<CostTotals, "lostAcceleratorHours" | "lostHours">): string {
  return `lost to interruptions: ${text(totals.lostAcceleratorHours)} accelerator-hours (${text(totals.lostHours)} hours)`;
}

/** `checkpoint storage: 3 GB`. */
export function storageText(totals: Pick<CostTotals, "checkpointBytes">): string {
  return `checkpoint storage: ${sizeText(totals.checkpointBytes)}`;
}

/**
 * What the base line says after the base's id: `160 accelerator-hours (10 hours), shared by 3
 * runs: 53.3333; with it: 77.3333 accelerator-hours`, the base's runs without recorded resources
 * counted beside its hours.
 */
export function baseShareText(base: BaseShare, withBase: CostAnswer["withBase"]): string {
  const unknown = base.runsWithoutResources.length;
  const hours = `${text(base.hours)} hours${unknown ? `, ${runs(unknown)} without recorded resources` : ""}`;
  const total = withBase ? `; with it: ${text(withBase.acceleratorHours)} accelerator-hours` : "";
  return `${text(base.acceleratorHours)} accelerator-hours (${hours}), shared by ${runs(base.users)}: ${text(base.shareAcceleratorHours)}${total}`;
}

/** `base model:p/base@1.0.0: 160 accelerator-hours (10 hours), shared by 3 runs: 53.3333; with it: 77.3333 accelerator-hours`. */
export function baseText(base: BaseShare, withBase: CostAnswer["withBase"]): string {
  return `base ${base.modelVersion}: ${baseShareText(base, withBase)}`;
}

/** A point of a metric: 0.01 of it (`recipes/cost.py`: `POINT`). */
const POINT = 0.01;

/** `gain on acc (dataset:p/eval@v1 [demo-eval])`: the metric and the evaluation set it was read on. */
export function gainHead(gain: Pick<CostGain, "metric" | "evaluationSet">): string {
  const s = gain.evaluationSet;
  return `gain on ${gain.metric}${s ? ` (${s.datasets.join(", ") || "no dataset"} [${s.suite ?? "?"}])` : ""}`;
}

/**
 * The gain line as `provgraph cost --metric` prints it: `gain on acc (dataset:p/eval@v1
 * [demo-eval]): 0.66 against 0.61 (model:p/chat-1b@1.0.0), 5 points, 2.9867 accelerator-hours
 * a point`, or the message saying why there is no figure.
 */
export function gainText(gain: CostGain): string {
  const head = gainHead(gain);
  const previous = gain.previousBest;
  if (!previous || gain.gain == null) return `${head}: ${gain.message ?? ""}`;
  // text() keeps six significant digits, as the CLI's cell: 0.05 / 0.01 reads 5.
  const figures = `${head}: ${text(gain.value)} against ${text(previous.value)} (${previous.version}), ${text(gain.gain / POINT)} points`;
  const per = gain.acceleratorHoursPerPoint;
  return per != null ? `${figures}, ${text(per)} accelerator-hours a point` : `${figures}: ${gain.message ?? ""}`;
}
