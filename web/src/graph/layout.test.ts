import { describe, expect, it } from "vitest";
import type { GraphNode } from "./model";
import { edgeKey, type GraphData } from "./model";
import dagre from "@dagrejs/dagre";
import { BIG_GRAPH, NODE_HEIGHT, NODE_WIDTH, clearShift, dagreGraph, inProcess, keepDrawn, layoutGraph, layoutPositions, placeGraph, toLayoutInput, topLefts, type LayoutInput, type LayoutRunner } from "./layout";
import type { Point } from "./focus";
import { nextFocus } from "./focus";

function chainGraph(n: number, fanout = 1): GraphData {
  const nodes = new Map<string, GraphNode>();
  const edges = new Map();
  for (let i = 0; i < n; i++) {
    const id = `n${i}`;
    nodes.set(id, { id, type: "Run", label: id, project: null, status: null, placeholder: false, deleted: false, failed: false });
    if (i > 0) {
      const to = `n${Math.floor((i - 1) / fanout)}`;
      const key = edgeKey(id, to, "USED");
      edges.set(key, { key, from: id, to, type: "USED", label: "USED" });
    }
  }
  return { nodes, edges, truncated: false };
}

describe("layout", () => {
  const runner = inProcess;

  it("lays edges out from source (to) to derived (from)", () => {
    expect(toLayoutInput(chainGraph(2))).toEqual({ nodes: ["n0", "n1"], edges: [["n0", "n1"]] });
  });

  it("places sources left of what was derived from them", async () => {
    const positions = await layoutGraph(runner, chainGraph(4));
    expect(positions.get("n0")!.x).toBeLessThan(positions.get("n1")!.x);
    expect(positions.get("n1")!.x).toBeLessThan(positions.get("n2")!.x);
    expect(positions.get("n2")!.x).toBeLessThan(positions.get("n3")!.x);
  });

  it("answers a laid-out graph from the cache", async () => {
    const graph = chainGraph(5);
    const first = await layoutGraph(runner, graph);
    expect(await layoutGraph(runner, chainGraph(5))).toBe(first);
  });

  it.each([20, BIG_GRAPH + 50])("keeps every edge left to right and no two nodes overlapping (%i nodes)", (n) => {
    const graph = chainGraph(n, 3);
    const input = toLayoutInput(graph);
    const p = layoutPositions(input);
    for (const [source, target] of input.edges) expect(p[source].x).toBeLessThan(p[target].x);
    const boxes = Object.values(p).sort((a, b) => a.x - b.x || a.y - b.y);
    for (let i = 1; i < boxes.length; i++) {
      const [a, b] = [boxes[i - 1], boxes[i]];
      const overlap = Math.abs(a.x - b.x) < NODE_WIDTH && Math.abs(a.y - b.y) < NODE_HEIGHT;
      expect(overlap).toBe(false);
    }
  });

  it("lays out 1,000 nodes in a bounded time", { timeout: 30_000 }, async () => {
    const started = performance.now();
    const positions = await layoutGraph(runner, chainGraph(1000, 3));
    const ms = performance.now() - started;
    expect(positions.size).toBe(1000);
    // A guard against options that blow up; the browser's own timings are measured by the
    // browser benchmark (benchmarks/bench_explorer.py), never asserted here.
    expect(ms).toBeLessThan(10000);
    console.info(`layout of 1,000 nodes: ${ms.toFixed(0)} ms`);
  });
});

/** A DAG of `n` nodes whose edges span up to `reach` ranks, from a seeded generator. */
function randomDag(n: number, reach: number, seed: number): LayoutInput {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const nodes = Array.from({ length: n }, (_, i) => `v${String(i).padStart(4, "0")}`);
  const edges: [string, string][] = [];
  for (let i = 1; i < n; i++) {
    const parents = 1 + Math.floor(random() * 3);
    for (let k = 0; k < parents; k++) edges.push([nodes[Math.max(0, i - 1 - Math.floor(random() * reach * 4))], nodes[i]]);
  }
  return { nodes, edges: [...new Map(edges.map((e) => [e.join("|"), e])).values()] };
}

describe("the order step of big graphs", () => {
  it.each([
    [BIG_GRAPH + 1, 2, 1],
    [192, 14, 7],
    [400, 5, 42],
  ])("places %i nodes (edges over up to ~%i ranks) exactly as dagre's own order step with its heuristic off", (n, reach, seed) => {
    const input = randomDag(n, reach, seed);
    const g = dagreGraph(input);
    dagre.layout(g, { disableOptimalOrderHeuristic: true });
    expect(layoutPositions(input)).toEqual(topLefts(g, input.nodes));
  });
});

function overlapping(p: Map<string, Point>): [string, string][] {
  const out: [string, string][] = [];
  const all = [...p];
  for (let i = 0; i < all.length; i++)
    for (let j = i + 1; j < all.length; j++) {
      const [[a, pa], [b, pb]] = [all[i], all[j]];
      if (Math.abs(pa.x - pb.x) < NODE_WIDTH && Math.abs(pa.y - pb.y) < NODE_HEIGHT) out.push([a, b]);
    }
  return out;
}

function withEdges(graph: GraphData, pairs: [string, string][]): GraphData {
  const nodes = new Map(graph.nodes);
  const edges = new Map(graph.edges);
  for (const [from, to] of pairs) {
    for (const id of [from, to]) if (!nodes.has(id)) nodes.set(id, { ...graph.nodes.values().next().value!, id, label: id });
    const key = edgeKey(from, to, "USED");
    edges.set(key, { key, from, to, type: "USED", label: "USED" });
  }
  return { nodes, edges, truncated: false };
}

describe("placing what an expand adds", () => {
  it("keeps every drawn node where it is and places the added ones clear of them, downstream to the right", async () => {
    const base = chainGraph(12, 3);
    const drawn = await layoutGraph(inProcess, base);
    // n5 gets three derived nodes (API edges run derived → source).
    const grown = withEdges(base, [["x1", "n5"], ["x2", "n5"], ["x3", "n5"], ["x3", "n1"]]);
    const placed = await placeGraph(inProcess, grown, drawn);
    expect(placed.size).toBe(15);
    for (const [id, p] of drawn) expect(placed.get(id)).toEqual(p);
    for (const id of ["x1", "x2", "x3"]) expect(placed.get(id)!.x).toBeGreaterThan(drawn.get("n5")!.x);
    expect(overlapping(placed)).toEqual([]);
  });

  it("places upstream additions to the left of the expanded node", async () => {
    const base = chainGraph(6, 2);
    const drawn = await layoutGraph(inProcess, base);
    const grown = withEdges(base, [["n0", "s1"], ["n0", "s2"]]);
    const placed = await placeGraph(inProcess, grown, drawn);
    for (const id of ["s1", "s2"]) expect(placed.get(id)!.x).toBeLessThan(drawn.get("n0")!.x);
    expect(overlapping(placed)).toEqual([]);
  });

  it("answers a collapse from the drawn positions, without laying out", async () => {
    const base = chainGraph(8, 2);
    const drawn = await layoutGraph(inProcess, base);
    const grown = withEdges(base, [["x1", "n3"]]);
    const placed = await placeGraph(inProcess, grown, drawn);
    const refusing: LayoutRunner = { layout: () => Promise.reject(new Error("laid out again")) };
    const collapsed = await placeGraph(refusing, base, placed);
    expect(collapsed).toEqual(drawn);
    expect(keepDrawn(grown, drawn)).toBeNull();
  });

  it("shifts a block by the least distance that clears the fixed boxes", () => {
    const step = NODE_HEIGHT + 28;
    expect(clearShift([{ x: 0, y: 0 }], [{ x: 0, y: step }])).toBe(0);
    // Blocked at 0; nearer above (-step) than below (+step + 10).
    expect(clearShift([{ x: 0, y: 0 }], [{ x: 0, y: 10 }])).toBe(10 - step);
    expect(clearShift([{ x: 0, y: 0 }], [{ x: 0, y: -10 }])).toBe(step - 10);
    // A column of fixed boxes: the nearest gap, not just past the first box.
    const column = [-2, -1, 0, 1].map((i) => ({ x: 5, y: i * step }));
    expect(clearShift([{ x: 0, y: 0 }], column)).toBe(2 * step);
    // Other columns do not block.
    expect(clearShift([{ x: 0, y: 0 }], [{ x: NODE_WIDTH + 130, y: 0 }])).toBe(0);
  });
});

describe("the layout cache", () => {
  it("lays a graph out once even when asked again before the first answer", async () => {
    let calls = 0;
    const counting: LayoutRunner = { layout: (input) => (calls++, inProcess.layout(input)) };
    const [a, b] = await Promise.all([layoutGraph(counting, chainGraph(7)), layoutGraph(counting, chainGraph(7))]);
    expect(calls).toBe(1);
    expect(a).toBe(b);
  });

  it("forgets a failed layout, so the next ask lays out again", async () => {
    const failing: LayoutRunner = { layout: () => Promise.reject(new Error("worker gone")) };
    await expect(layoutGraph(failing, chainGraph(9))).rejects.toThrow("worker gone");
    expect((await layoutGraph(inProcess, chainGraph(9))).size).toBe(9);
  });
});

describe("nextFocus", () => {
  const positions = new Map([
    ["a", { x: 0, y: 0 }],
    ["b", { x: 300, y: 0 }],
    ["c", { x: 300, y: 100 }],
    ["d", { x: 600, y: 400 }],
  ]);
  const neighbours = new Map([
    ["a", [{ node: "c" }]],
    ["b", []],
    ["c", [{ node: "a" }]],
    ["d", []],
  ]);
  it("prefers a linked neighbour in the arrow's direction", () => {
    expect(nextFocus("a", "ArrowRight", positions, neighbours)).toBe("c");
    expect(nextFocus("c", "ArrowLeft", positions, neighbours)).toBe("a");
  });
  it("falls back to the nearest node that way, or null", () => {
    expect(nextFocus("c", "ArrowUp", positions, neighbours)).toBe("b");
    expect(nextFocus("a", "ArrowLeft", positions, neighbours)).toBeNull();
    expect(nextFocus("c", "ArrowDown", positions, neighbours)).toBe("d");
  });
});
