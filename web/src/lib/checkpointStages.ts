/**
 * The words of the Checkpoints page, as `provgraph checkpoints` prints them
 * (recipes/checkpoint_stages.py): a metric's value with its change, a suite, the saved metrics.
 */
import type { CheckpointStage, StageResult } from "../api/types";
import { num } from "./scaleUp";

/** `0.55 (+0.15 since step 1000)`, or the value alone without a previous one on the set. */
export function valueText(result: Pick<StageResult, "value" | "change" | "previousStep">): string {
  if (result.change == null) return num(result.value);
  const sign = result.change >= 0 ? "+" : "";
  return `${num(result.value)} (${sign}${num(result.change)} since step ${result.previousStep})`;
}

/** `demo-eval@1`, or the suite alone without a version. */
export function suiteText(result: Pick<StageResult, "suite" | "suiteVersion">): string {
  return result.suiteVersion ? `${num(result.suite)}@${result.suiteVersion}` : num(result.suite);
}

/** `train/loss 2.9, val/loss 3.1`, or `-` when none was saved. */
export function savedText(stage: Pick<CheckpointStage, "metrics">): string {
  return stage.metrics.map((m) => `${m.name} ${num(m.value)}`).join(", ") || "-";
}

/** `2 checkpoints`, or `8 of 40 checkpoints` when the answer kept only the latest. */
export function countText(answer: { total: number; truncated: boolean; checkpoints: readonly unknown[] }): string {
  const shown = answer.truncated ? `${answer.checkpoints.length} of ${answer.total}` : `${answer.checkpoints.length}`;
  return `${shown} checkpoint${answer.total === 1 ? "" : "s"}`;
}
