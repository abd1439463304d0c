import { describe, expect, it } from "vitest";
import type { NodeSummary } from "../api/types";
import { groupImpact } from "./impact";

const n = (id: string, type: string): NodeSummary => ({
  id, type, project: "p", firstSeenAt: null, lastEventAt: null, deletedAt: null, placeholder: false,
});

describe("groupImpact", () => {
  it("groups deployments, model versions and runs, with hops for the lineage link", () => {
    const groups = groupImpact({
      root: n("dsv:1", "DatasetVersion"),
      impact: [
        { node: n("dep:1", "Deployment"), path: { nodes: [{ id: "dsv:1", type: "DatasetVersion" }, { id: "run:1", type: "Run" }, { id: "mv:1", type: "ModelVersion" }, { id: "dep:1", type: "Deployment" }], edges: [{ from: "run:1", to: "dsv:1", type: "USED" }, { from: "mv:1", to: "run:1", type: "PRODUCED_BY" }, { from: "dep:1", to: "mv:1", type: "SERVES" }] } },
        { node: n("mv:1", "ModelVersion"), path: { nodes: [], edges: [{ from: "a", to: "b", type: "X" }, { from: "b", to: "c", type: "Y" }] } },
      ],
      runs: { nodes: [n("dsv:1", "DatasetVersion"), n("run:2", "Run"), n("run:1", "Run")], truncated: true, depths: { "run:1": 1, "run:2": 3 } },
    });
    expect(groups.deployments.map((e) => [e.node.id, e.hops, e.path.length])).toEqual([["dep:1", 3, 4]]);
    expect(groups.modelVersions.map((e) => e.hops)).toEqual([2]);
    expect(groups.runs.map((e) => [e.node.id, e.hops])).toEqual([["run:1", 1], ["run:2", 3]]);
    expect(groups.runsTruncated).toBe(true);
  });
});
