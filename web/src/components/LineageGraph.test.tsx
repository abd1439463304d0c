import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { LineageData, NodeSummary } from "../api/types";
import type { Point } from "../graph/focus";
import { fromLineage, shortestPath, type GraphData } from "../graph/model";
import { backEdgePath, DETAIL_ZOOM, EdgeLayer, fitted, LineageFlow, NodeLayer, type LineageGraphProps, type NodeLayerProps } from "./LineageGraph";
import { NODE_HEIGHT, NODE_WIDTH } from "../graph/layout";

const node = (id: string, type: string, extra: Partial<NodeSummary> = {}): NodeSummary => ({
  id, type, project: "p", firstSeenAt: null, lastEventAt: null, deletedAt: null, placeholder: false, ...extra,
});

const answer: LineageData = {
  root: node("model:p/m@1", "ModelVersion", { name: "m", version: "1" }),
  nodes: [
    node("run:7", "Run", { name: "train", runNumber: 7, status: "failed" }),
    node("dsv:p/d@v2", "DatasetVersion", { name: "d", version: "v2", placeholder: true }),
  ],
  edges: [
    { from: "model:p/m@1", to: "run:7", type: "PRODUCED_BY", properties: {} },
    { from: "run:7", to: "dsv:p/d@v2", type: "USED", properties: { role: "train" } },
  ],
  truncated: false,
  depths: {},
};

/** What both renderings share: rooted at the model version, nothing expanded or selected. */
const state = { rootId: "model:p/m@1", expanded: new Set<string>(), expanding: null, selected: [] };

/** The graph's HTML as drawn in a 1200 x 600 box. */
function draw(graph: GraphData, positions: Map<string, Point>, extra: Partial<LineageGraphProps> = {}): string {
  const none = () => undefined;
  return renderToString(
    <LineageFlow
      size={{ width: 1200, height: 600 }}
      {...{ graph, positions, ...state, path: null, onToggleExpand: none, onToggleSelect: none, onFocusNode: none, ...extra }}
    />,
  );
}

/** The node layer's HTML (nodes are drawn into React Flow's viewport, a portal absent from a
 * server render, so the layer is drawn on its own). */
function drawNodes(graph: GraphData, positions: Map<string, Point>, extra: Partial<NodeLayerProps> = {}): string {
  const none = () => undefined;
  return renderToString(<NodeLayer {...{ graph, positions, ...state, pathNodes: new Set(), detail: true, onActivate: none, onKey: none, ...extra }} />);
}

describe("LineageGraph (server-rendered)", () => {
  const graph = fromLineage(answer);
  const positions = new Map([
    ["dsv:p/d@v2", { x: 0, y: 0 }],
    ["run:7", { x: 300, y: 0 }],
    ["model:p/m@1", { x: 600, y: 0 }],
  ]);
  const page = draw(graph, positions);
  const html = drawNodes(graph, positions, {
    expanded: new Set(["run:7"]),
    selected: ["dsv:p/d@v2", "model:p/m@1"],
    pathNodes: new Set(shortestPath(graph, "dsv:p/d@v2", "model:p/m@1")?.nodes),
  });

  it("gives every drawn node its provgraph id, focusable, at its laid-out place", () => {
    for (const id of graph.nodes.keys()) expect(html).toContain(`data-node-id="${id}"`);
    expect(html.match(/data-node-id="[^"]+"[^>]*tabindex="0"|tabindex="0"[^>]*data-node-id/g)?.length).toBe(3);
    expect(html).toMatch(/transform:translate\(300px, 0px\)[^>]*data-node-id="run:7"/);
  });

  it("leaves out a node that is not laid out", () => {
    const some = new Map([...positions].filter(([id]) => id !== "run:7"));
    expect(drawNodes(graph, some).match(/data-node-id=/g)?.length).toBe(2);
  });

  // Edges too are drawn into React Flow's viewport: their layer is drawn on its own here.
  const path = shortestPath(graph, "dsv:p/d@v2", "model:p/m@1");
  const edges = renderToString(<EdgeLayer graph={graph} positions={positions} pathEdges={new Set(path?.edges)} detail />);

  it("gives every drawn edge <from>|<to>|<TYPE> in the API's direction, with its label", () => {
    expect(edges.match(/data-edge=/g)?.length).toBe(2);
    expect(edges).toContain('data-edge="model:p/m@1|run:7|PRODUCED_BY"');
    expect(edges).toContain('data-edge="run:7|dsv:p/d@v2|USED"');
    expect(edges).toContain("USED · role train");
  });

  it("draws each edge from its source's right side to the derived node's left", () => {
    // run:7 (x 300) was derived from dsv (x 0): from (0 + width, mid) to (300, mid).
    expect(edges).toMatch(new RegExp(`d="M${NODE_WIDTH},${NODE_HEIGHT / 2} C[^"]* 300,${NODE_HEIGHT / 2}"`));
  });

  it("leaves out an edge whose end is not laid out, and labels when zoomed out", () => {
    const some = new Map([...positions].filter(([id]) => id !== "model:p/m@1"));
    const zoomedOut = renderToString(<EdgeLayer graph={graph} positions={some} pathEdges={new Set()} detail={false} />);
    expect(zoomedOut.match(/data-edge=/g)?.length).toBe(1);
    expect(zoomedOut).not.toContain("gedge-label");
  });

  it("says the type, failure and placeholder in text, not only colour", () => {
    expect(html).toContain("Model version");
    expect(html).toContain("FAILED");
    expect(html).toContain("PLACEHOLDER");
    expect(html).toContain("expanded −");
  });

  it("draws a small graph at reading size, with its text", () => {
    expect(page).toContain('data-zoom="detail"');
    expect(page).not.toContain("zoom in to read the labels");
  });

  it("highlights the path between the two selected nodes", () => {
    expect(edges.match(/class="gedge on-path"/g)?.length).toBe(2);
    expect(html.match(/gnode[^"]*on-path/g)?.length).toBe(3);
  });
});

describe("the first viewport", () => {
  const row = (n: number) => new Map(Array.from({ length: n }, (_, i) => [`n${i}`, { x: 0, y: i * (NODE_HEIGHT + 28) }]));

  it("fits every node in the box, centred, as fitView would", () => {
    const v = fitted(row(8), { width: 1000, height: 600 });
    const height = 8 * NODE_HEIGHT + 7 * 28;
    expect(v.zoom).toBeCloseTo(Math.min(1000 / (NODE_WIDTH * 1.1), 600 / (height * 1.1)), 1);
    expect(v.x + (NODE_WIDTH / 2) * v.zoom).toBeCloseTo(500, 0);
    expect(v.y + (height / 2) * v.zoom).toBeCloseTo(300, 0);
  });

  it("starts a big graph zoomed out: shapes only, with a note saying so", () => {
    const big = fromLineage({
      ...answer,
      nodes: [...answer.nodes, ...Array.from({ length: 300 }, (_, i) => node(`run:x${i}`, "Run", { name: `r${i}` }))],
    });
    const positions = new Map([...big.nodes.keys()].map((id, i) => [id, { x: 0, y: i * (NODE_HEIGHT + 28) }]));
    expect(fitted(positions, { width: 1200, height: 600 }).zoom).toBeLessThan(DETAIL_ZOOM);
    const page = draw(big, positions);
    expect(page).toContain('data-zoom="overview"');
    expect(page).toContain("zoom in to read the labels");
    const html = drawNodes(big, positions, { detail: false });
    expect(html.match(/data-node-id=/g)?.length).toBe(big.nodes.size);
    // What cannot be read is not built: no node text; names stay for readers.
    expect(html).not.toContain("gnode-label");
    expect(html).toContain('aria-label="Run r0, not expanded');
  });
});

describe("backEdgePath", () => {
  it("runs from the source to the target below both, its label under them", () => {
    const [path, x, y] = backEdgePath(500, 100, 200, 120);
    expect(path.startsWith("M 500,100 C")).toBe(true);
    expect(path.endsWith(" 200,120")).toBe(true);
    const controlYs = [...path.matchAll(/C ([\d.]+),([\d.]+) ([\d.]+),([\d.]+)/g)].flatMap((m) => [Number(m[2]), Number(m[4])]);
    expect(Math.min(...controlYs)).toBeGreaterThan(120);
    expect(x).toBe(350);
    expect(y).toBeGreaterThan(120);
  });
});
