/**
 * Left-to-right layered layout of a lineage graph with dagre, memoised by graph content.
 *
 * The layout itself (`layoutPositions`) is a pure function of plain data, so it runs the
 * same in a Web Worker (layout.worker.ts, the browser) and in-process (tests).
 */

import dagre from "@dagrejs/dagre";
import type { Point } from "./focus";
import type { GraphData } from "./model";

/** Drawn node size (the node component uses the same). */
export const NODE_WIDTH = 210;
export const NODE_HEIGHT = 66;

/** Above this many nodes the cheaper passes are used (measured: see docs/performance.md). */
export const BIG_GRAPH = 100;

/** What the layout needs: node ids, and edges in the direction data flows (source → derived). */
export interface LayoutInput {
  nodes: string[];
  edges: [string, string][];
}

/** Something that lays out (the worker in the browser, or `inProcess`). */
export interface LayoutRunner {
  layout(input: LayoutInput): Promise<Record<string, Point>>;
}

/**
 * The layout input: data flows from a source to what was derived from it, so each API edge
 * (derived → source) is laid out from its `to` to its `from`, sources on the left. Sorted,
 * so the same graph always lays out the same.
 */
export function toLayoutInput(graph: GraphData): LayoutInput {
  const edges: [string, string][] = [];
  for (const e of graph.edges.values()) if (e.from !== e.to) edges.push([e.to, e.from]);
  edges.sort((a, b) => (a[0] + "\n" + a[1] < b[0] + "\n" + b[1] ? -1 : 1));
  return { nodes: [...graph.nodes.keys()].sort(), edges };
}

/**
 * Top-left corners of each node. Small graphs get dagre's full passes (network-simplex ranks,
 * the crossing-reduction sweeps); big ones longest-path ranks and one ordering heuristic,
 * several times cheaper.
 */
export function layoutPositions(input: LayoutInput): Record<string, Point> {
  const big = input.nodes.length > BIG_GRAPH;
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: "LR", nodesep: 28, ranksep: 130, marginx: 10, marginy: 10, ranker: big ? "longest-path" : "network-simplex" });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of input.nodes) g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const [source, target] of input.edges) g.setEdge(source, target);
  dagre.layout(g, { disableOptimalOrderHeuristic: big });
  const out: Record<string, Point> = {};
  for (const id of input.nodes) {
    const n = g.node(id);
    out[id] = { x: n.x - NODE_WIDTH / 2, y: n.y - NODE_HEIGHT / 2 };
  }
  return out;
}

/** The runner that lays out on the calling thread. */
export const inProcess: LayoutRunner = {
  layout: (input) => Promise.resolve(layoutPositions(input)),
};

/** A content signature: the same nodes and edges lay out the same. */
export function signature(graph: GraphData): string {
  return [...graph.nodes.keys()].sort().join("\n") + "\n--\n" + [...graph.edges.keys()].sort().join("\n");
}

const cache = new Map<string, Map<string, Point>>();
const CACHE_SIZE = 16;

/** Node positions (top-left corners); answers from the cache when the graph was laid out. */
export async function layoutGraph(runner: LayoutRunner, graph: GraphData): Promise<Map<string, Point>> {
  const key = signature(graph);
  const hit = cache.get(key);
  if (hit) return hit;
  const positions = new Map(Object.entries(await runner.layout(toLayoutInput(graph))));
  cache.set(key, positions);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return positions;
}
