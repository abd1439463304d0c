import { describe, expect, it } from "vitest";
import { metricCurves, pointCounts, seriesCurves, withoutMetrics } from "./curves";

const logged = [
  { name: "val/loss", points: [{ step: 500, value: 3.4 }, { step: 2000, value: 2.65 }] },
  {
    name: "train/loss",
    points: [
      { step: 0, value: 10.8 },
      { step: 500, value: 3.5 },
      { step: 2000, value: 2.4 },
    ],
  },
];

describe("seriesCurves", () => {
  it("overlays the logged series by step, a column per metric, gaps left absent", () => {
    const { points, metrics } = seriesCurves(logged);
    expect(metrics).toEqual(["train/loss", "val/loss"]);
    expect(points).toEqual([
      { step: 0, "train/loss": 10.8 },
      { step: 500, "train/loss": 3.5, "val/loss": 3.4 },
      { step: 2000, "train/loss": 2.4, "val/loss": 2.65 },
    ]);
  });
  it("leaves out what cannot be drawn, and a series without points", () => {
    const curves = seriesCurves([
      { name: "loss", points: [{ step: 1, value: Number.NaN }, { step: 2, value: 0.5 }] },
      { name: "empty", points: [] },
    ]);
    expect(curves).toEqual({ points: [{ step: 2, loss: 0.5 }], metrics: ["loss"] });
    expect(seriesCurves([])).toEqual({ points: [], metrics: [] });
  });
});

describe("pointCounts", () => {
  it("counts the points drawn per metric", () => {
    expect(pointCounts(seriesCurves(logged))).toEqual({ "train/loss": 3, "val/loss": 2 });
    expect(pointCounts({ points: [], metrics: [] })).toEqual({});
  });
});

describe("withoutMetrics", () => {
  it("keeps only the checkpoint metrics no logged series draws", () => {
    const saved = metricCurves([
      { step: 1000, metrics: { "train/loss": 2.9, "grad/norm": 0.7 } },
      { step: 2000, metrics: { "train/loss": 2.4 } },
    ]);
    const rest = withoutMetrics(saved, seriesCurves(logged).metrics);
    expect(rest).toEqual({ points: [{ step: 1000, "grad/norm": 0.7 }], metrics: ["grad/norm"] });
    expect(pointCounts(rest)).toEqual({ "grad/norm": 1 });
    expect(withoutMetrics(saved, [])).toEqual(saved);
  });
});
