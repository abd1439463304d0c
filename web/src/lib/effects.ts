/** The effects table's cells as the CLI's `provgraph effects` prints them (`recipes/effects.py`). */

import type { Effect } from "../api/types";
import { text } from "./json";

/** A change of the metric with its sign (`+0.1`, `-0.08`, `0`); `—` when there is none. */
export function signed(delta: number | null | undefined): string {
  if (delta === null || delta === undefined) return "—";
  return `${delta > 0 ? "+" : ""}${text(delta)}`;
}

/** The mean change and its spread (`-0.08 ± 0.0282843`); the spread only over two measured pairs or more. */
export function meanText(effect: Pick<Effect, "meanDelta" | "spread">): string {
  if (effect.meanDelta === null) return "—";
  return signed(effect.meanDelta) + (effect.spread === null ? "" : ` ± ${text(effect.spread)}`);
}

/** How many later runs failed, of the pairs, and their errors (`2 of 2: OutOfMemoryError x2`); `—` for none. */
export function failedText(effect: Pick<Effect, "failed" | "pairs" | "failures">): string {
  if (!effect.failed) return "—";
  const errors = effect.failures.map((f) => (f.count === 1 ? f.error : `${f.error} x${f.count}`)).join(", ");
  return `${effect.failed} of ${effect.pairs}: ${errors}`;
}

/** How many later runs have not finished; `—` for none. */
export function runningText(effect: Pick<Effect, "running">): string {
  return effect.running ? String(effect.running) : "—";
}
