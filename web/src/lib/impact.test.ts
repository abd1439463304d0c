import { describe, expect, it } from "vitest";
import type { NodeSummary } from "../api/types";
import { groupImpact, scoreText, suiteText } from "./impact";

const n = (id: string, type: string): NodeSummary => ({
  id, type, project: "p", firstSeenAt: null, lastEventAt: null, deletedAt: null, placeholder: false,
});

const result = {
  evaluation: "evaluation:1",
  suite: "demo-eval",
  suiteVersion: null,
  datasets: ["dataset:p/eval@v1"],
  metric: "acc",
  value: 0.66,
  passed: true,
  evaluatedAt: "2026-01-05T17:50:00.000000Z",
};

describe("groupImpact", () => {
  it("groups deployments, model versions and runs, with hops for the lineage link", () => {
    const groups = groupImpact({
      root: n("dsv:1", "DatasetVersion"),
      impact: [
        { node: n("dep:1", "Deployment"), path: { nodes: [{ id: "dsv:1", type: "DatasetVersion" }, { id: "run:1", type: "Run" }, { id: "mv:1", type: "ModelVersion" }, { id: "dep:1", type: "Deployment" }], edges: [{ from: "run:1", to: "dsv:1", type: "USED" }, { from: "mv:1", to: "run:1", type: "PRODUCED_BY" }, { from: "dep:1", to: "mv:1", type: "SERVES" }] }, evaluationResults: [] },
        { node: n("mv:1", "ModelVersion"), path: { nodes: [], edges: [{ from: "a", to: "b", type: "X" }, { from: "b", to: "c", type: "Y" }] }, evaluationResults: [result] },
      ],
      runs: { nodes: [n("dsv:1", "DatasetVersion"), n("run:2", "Run"), n("run:1", "Run")], truncated: true, depths: { "run:1": 1, "run:2": 3 } },
    });
    expect(groups.deployments.map((e) => [e.node.id, e.hops, e.path.length])).toEqual([["dep:1", 3, 4]]);
    expect(groups.modelVersions.map((e) => e.hops)).toEqual([2]);
    expect(groups.modelVersions[0].evaluations).toEqual([result]);
    expect(groups.deployments[0].evaluations).toEqual([]);
    expect(groups.runs.every((e) => e.evaluations.length === 0)).toBe(true);
    expect(groups.runs.map((e) => [e.node.id, e.hops])).toEqual([["run:1", 1], ["run:2", 3]]);
    expect(groups.runsTruncated).toBe(true);
  });
});

describe("evaluation results", () => {
  it("name the suite and the score as provgraph impact does", () => {
    expect(suiteText(result)).toBe("demo-eval");
    expect(suiteText({ suite: "mmlu", suiteVersion: "2" })).toBe("mmlu 2");
    expect(suiteText({ suite: null, suiteVersion: null })).toBe("no suite");
    expect(scoreText(result)).toBe("acc = 0.66");
    expect(scoreText({ metric: "loss", value: 1.23456789 })).toBe("loss = 1.23457");
    expect(scoreText({ metric: null, value: null })).toBe("no metric");
  });
});
