import { describe, expect, it } from "vitest";
import type { Json } from "../api/scalars";
import type { MetricTrend, ScaleUpRun } from "../api/types";
import { changeText, factorText, finalText, num, resourcesText, trendText } from "./scaleUp";

function run(resources: { [key: string]: Json }, accelerators: number | null): ScaleUpRun {
  return { id: "run:p-1", name: "p-1", experiment: null, runNumber: null, status: "completed", resources, accelerators };
}

const METRIC: MetricTrend = {
  name: "val/loss",
  verdict: "held",
  why: "both went down; as good or better at the end (lower is better)",
  sharedSteps: { start: 100, end: 400 },
  pilot: { final: { step: 400, value: 1.7 }, trend: { direction: "down", change: -0.7, slopePer1kSteps: -2.33333 } },
  scaleUp: { final: { step: 1600, value: 1.2 }, trend: { direction: "down", change: -0.7, slopePer1kSteps: -2.33333 } },
};

describe("the scale-up page's words, as provgraph scale-up prints them", () => {
  it("prints resources with their accelerators and parallelism degrees", () => {
    expect(resourcesText(run({ num_nodes: 8, devices_per_node: 8, accelerator: "H100", "parallelism.data": 64, "parallelism.tensor": 2 }, 64))).toBe(
      "8 x 8 H100 = 64 (data 64, tensor 2)",
    );
    expect(resourcesText(run({ devices_per_node: 8 }, 8))).toBe("- x 8 = 8");
    expect(resourcesText(run({}, null))).toBe("no resources recorded");
  });

  it("prints changes, the factor and numbers as the CLI does", () => {
    expect(changeText({ kind: "RESOURCES", name: "num_nodes", before: 1, after: 8 })).toBe("resources num_nodes: 1 -> 8");
    expect(changeText({ kind: "PARAM", name: "batch_size", before: null, after: 512 })).toBe("param batch_size: - -> 512");
    expect(factorText(8)).toBe("x8 accelerators");
    expect(factorText(null)).toBe("unknown");
    expect([num(-0.09000000000000008), num(4), num(null)]).toEqual(["-0.09", "4", "-"]);
  });

  it("prints a metric's final values and trends; none without both trends", () => {
    expect(finalText(METRIC)).toBe("pilot 1.7 at step 400, scale-up 1.2 at step 1600");
    expect(trendText(METRIC)).toBe("steps 100-400: pilot down -0.7, scale-up down -0.7");
    expect(trendText({ ...METRIC, sharedSteps: null })).toBeNull();
    expect(trendText({ ...METRIC, pilot: { ...METRIC.pilot, trend: null } })).toBeNull();
  });
});
