import { describe, expect, it } from "vitest";
import type { LineageData, NodeSummary } from "../api/types";
import { addedBy, edgeKey, edgeLabel, fromLineage, nodeLabel, shortestPath, unionGraphs } from "./model";

function node(id: string, type: string, extra: Partial<NodeSummary> = {}): NodeSummary {
  return { id, type, project: "p", firstSeenAt: null, lastEventAt: null, deletedAt: null, placeholder: false, ...extra };
}

const answer: LineageData = {
  root: node("mv", "ModelVersion", { name: "resnet", version: "3" }),
  nodes: [
    node("run", "Run", { name: "train", runNumber: 7, status: "failed" }),
    node("dsv", "DatasetVersion", { name: "imgs", version: "v2", deletedAt: "2026-01-01T00:00:00Z" }),
    node("ghost", "DatasetVersion", { placeholder: true }),
  ],
  edges: [
    { from: "mv", to: "run", type: "PRODUCED_BY", properties: {} },
    { from: "run", to: "dsv", type: "USED", properties: { role: "train" } },
    { from: "dsv", to: "ghost", type: "DERIVED_FROM", properties: JSON.stringify({ transform: "dedupe" }) },
    { from: "run", to: "missing", type: "USED", properties: {} },
  ],
  truncated: true,
  depths: { mv: 0, run: 1, dsv: 2, ghost: 3 },
};

describe("fromLineage", () => {
  const graph = fromLineage(answer);

  it("keeps the API's edge direction in the edge key", () => {
    expect([...graph.edges.keys()]).toEqual([
      "mv|run|PRODUCED_BY",
      "run|dsv|USED",
      "dsv|ghost|DERIVED_FROM",
    ]);
    expect(edgeKey("a", "b", "USED")).toBe("a|b|USED");
  });

  it("draws the root, which the answer gives apart from its nodes", () => {
    expect(graph.nodes.get("mv")).toMatchObject({ label: "resnet v3" });
    expect(graph.edges.has("mv|run|PRODUCED_BY")).toBe(true);
  });

  it("drops edges to nodes the answer left out", () => {
    expect(graph.edges.has("run|missing|USED")).toBe(false);
  });

  it("labels edges with role and transform, from objects or JSON text", () => {
    expect(graph.edges.get("run|dsv|USED")?.label).toBe("USED · role train");
    expect(graph.edges.get("dsv|ghost|DERIVED_FROM")?.label).toBe("DERIVED_FROM · transform dedupe");
    expect(edgeLabel({ from: "a", to: "b", type: "SERVES", properties: { weight: 0.5 } })).toBe("SERVES · weight 0.5");
  });

  it("marks failed runs, deleted and placeholder nodes", () => {
    expect(graph.nodes.get("run")).toMatchObject({ failed: true, label: "train #7" });
    expect(graph.nodes.get("dsv")).toMatchObject({ deleted: true, label: "imgs v2" });
    expect(graph.nodes.get("ghost")).toMatchObject({ placeholder: true, label: "ghost" });
    expect(graph.truncated).toBe(true);
  });

  it("labels versions, experiments and checkpoints for people", () => {
    expect(nodeLabel(node("m", "ModelVersion", { name: "resnet", version: "3" }))).toBe("resnet v3");
    expect(nodeLabel(node("e", "Experiment", { number: 4, key: "lr" }))).toBe("experiment 4 (lr)");
    expect(nodeLabel(node("c", "Checkpoint", { step: 100 }))).toBe("step 100");
  });
});

describe("expansions", () => {
  const base = fromLineage(answer);
  const one = fromLineage({
    ...answer,
    root: node("ghost", "DatasetVersion"),
    nodes: [node("raw", "Dataset")],
    edges: [{ from: "ghost", to: "raw", type: "VERSION_OF", properties: {} }],
    truncated: false,
  });
  const two = fromLineage({
    ...answer,
    root: node("dsv", "DatasetVersion"),
    nodes: [node("raw", "Dataset"), node("other", "Dataset")],
    edges: [{ from: "dsv", to: "other", type: "VERSION_OF", properties: {} }],
    truncated: false,
  });

  it("merges expansions into the base, base nodes kept as they were", () => {
    const merged = unionGraphs(base, [one]);
    expect(merged.nodes.size).toBe(5);
    expect(merged.nodes.get("ghost")?.placeholder).toBe(true);
    expect(merged.edges.has("ghost|raw|VERSION_OF")).toBe(true);
  });

  it("collapsing removes only what no other open expansion holds", () => {
    const open = new Map([["ghost", one], ["dsv", two]]);
    expect(addedBy(base, open, "ghost")).toEqual([]);
    expect(addedBy(base, open, "dsv").sort()).toEqual(["other"]);
    expect(addedBy(base, new Map([["ghost", one]]), "ghost")).toEqual(["raw"]);
  });
});

describe("shortestPath", () => {
  const graph = fromLineage(answer);
  it("walks edges in either direction", () => {
    expect(shortestPath(graph, "ghost", "mv")).toEqual({
      nodes: ["ghost", "dsv", "run", "mv"],
      edges: ["dsv|ghost|DERIVED_FROM", "run|dsv|USED", "mv|run|PRODUCED_BY"],
    });
  });
  it("answers null for unconnected or unknown nodes", () => {
    const lonely = unionGraphs(graph, [{ nodes: new Map([["x", { ...graph.nodes.get("mv")!, id: "x" }]]), edges: new Map(), truncated: false }]);
    expect(shortestPath(lonely, "x", "mv")).toBeNull();
    expect(shortestPath(graph, "nope", "mv")).toBeNull();
  });
});
