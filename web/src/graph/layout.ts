/**
 * Left-to-right layered layout of a lineage graph with dagre, memoised by graph content.
 *
 * The layout itself (`layoutPositions`) is a pure function of plain data, so it runs the
 * same in a Web Worker (layout.worker.ts, the browser) and in-process (tests).
 */

import dagre, { type graphlib } from "@dagrejs/dagre";
import type { Point } from "./focus";
import type { GraphData } from "./model";

/** Drawn node size (the node component uses the same). */
export const NODE_WIDTH = 210;
export const NODE_HEIGHT = 66;

/** Above this many nodes the ordering heuristic is skipped (measured: see docs/performance.md). */
export const BIG_GRAPH = 100;
/** Above this many nodes ranks are longest-path, not network-simplex (whose cost grows faster). */
export const HUGE_GRAPH = 500;

/** Space kept between an added node and one already drawn (the layout's own spacing). */
const NODE_SEP = 28;
const RANK_SEP = 130;

/** What the layout needs: node ids, and edges in the direction data flows (source → derived). */
export interface LayoutInput {
  nodes: string[];
  edges: [string, string][];
}

/**
 * Something that lays out (the worker in the browser, or `inProcess`): the whole graph, or,
 * given the positions already drawn, only the nodes that have none (`placeAdded`).
 */
export interface LayoutRunner {
  layout(input: LayoutInput, drawn?: Record<string, Point>): Promise<Record<string, Point>>;
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
 * the crossing-reduction sweeps); above BIG_GRAPH nodes the ordering heuristic is skipped, and
 * above HUGE_GRAPH ranks are longest-path: each several times cheaper on graphs of that size.
 */
export function layoutPositions(input: LayoutInput): Record<string, Point> {
  const g = dagreGraph(input);
  dagre.layout(g, input.nodes.length > BIG_GRAPH ? { customOrder: initialOrder } : {});
  return topLefts(g, input.nodes);
}

/** `input` as a dagre graph: left to right, the page's node size and spacing, its ranker. */
export function dagreGraph(input: LayoutInput): graphlib.Graph {
  const ranker = input.nodes.length > HUGE_GRAPH ? "longest-path" : "network-simplex";
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: "LR", nodesep: NODE_SEP, ranksep: RANK_SEP, marginx: 10, marginy: 10, ranker });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of input.nodes) g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const [source, target] of input.edges) g.setEdge(source, target);
  return g;
}

/** The top-left corners of `ids` in the laid-out `g` (dagre gives centres). */
export function topLefts(g: graphlib.Graph, ids: string[]): Record<string, Point> {
  const out: Record<string, Point> = {};
  for (const id of ids) {
    const n = g.node(id);
    out[id] = { x: n.x - NODE_WIDTH / 2, y: n.y - NODE_HEIGHT / 2 };
  }
  return out;
}

/**
 * dagre's order step with its crossing-reduction heuristic off (`disableOptimalOrderHeuristic`),
 * given to dagre as its `customOrder` hook: the initial order alone, a depth-first walk from the
 * nodes of the first rank, each node placed after those of its rank already visited, as
 * dagre's own initial order does (the positions are identical: layout.test.ts). dagre's step,
 * heuristic off, still builds two layer graphs per rank that only the heuristic reads: about a
 * third of a 200-node layout (docs/performance.md).
 */
export function initialOrder(g: graphlib.Graph): void {
  // dagre's layout graph: every node has its rank by now, and takes its order here.
  const at = (v: string) => g.node(v) as unknown as { rank: number; order: number };
  const next: number[] = [];
  const seen = new Set<string>();
  const visit = (v: string): void => {
    if (seen.has(v)) return;
    seen.add(v);
    const node = at(v);
    node.order = next[node.rank] ?? 0;
    next[node.rank] = node.order + 1;
    for (const w of g.successors(v) ?? []) visit(w);
  };
  const leaves = g.nodes().filter((v: string) => !g.children(v).length);
  for (const v of leaves.sort((a: string, b: string) => at(a).rank - at(b).rank)) visit(v);
}

/**
 * Positions for a graph part of which is drawn: drawn nodes stay where they are, and the rest
 * (what an expand added) is laid out by dagre together with the drawn nodes it touches. That
 * part is moved so the drawn node it hangs from most (the expanded node) keeps its place, then
 * up or down by the least distance that keeps it clear of every drawn node.
 */
export function placeAdded(input: LayoutInput, drawn: Record<string, Point>): Record<string, Point> {
  const out: Record<string, Point> = {};
  const added = new Set<string>();
  for (const id of input.nodes) {
    if (id in drawn) out[id] = drawn[id];
    else added.add(id);
  }
  if (!added.size) return out;
  const edges = input.edges.filter(([s, t]) => added.has(s) || added.has(t));
  const part = new Set(added);
  const touches = new Map<string, number>();
  for (const [s, t] of edges) {
    for (const [id, other] of [[s, t], [t, s]]) {
      if (added.has(id)) continue;
      part.add(id);
      if (added.has(other)) touches.set(id, (touches.get(id) ?? 0) + 1);
    }
  }
  const local = layoutPositions({ nodes: [...part].sort(), edges });
  let anchor: string | null = null;
  for (const [id, n] of touches) if (anchor === null || n > touches.get(anchor)! || (n === touches.get(anchor) && id < anchor)) anchor = id;
  // Nothing drawn touches the part (not an expand's answer): it stays where dagre put it,
  // moved clear of the drawn nodes like any other.
  const dx = anchor === null ? 0 : drawn[anchor].x - local[anchor].x;
  const dy = anchor === null ? 0 : drawn[anchor].y - local[anchor].y;
  const moved = [...added].map((id) => ({ id, x: local[id].x + dx, y: local[id].y + dy }));
  const shift = clearShift(moved, Object.values(out));
  for (const p of moved) out[p.id] = { x: p.x, y: p.y + shift };
  return out;
}

/**
 * The vertical shift nearest to 0 that keeps every box of `block` clear of every box of
 * `fixed` (all NODE_WIDTH x NODE_HEIGHT, NODE_SEP apart): each pair sharing columns forbids an
 * open interval of shifts; merged, the one holding 0 (if any) has the answer at an end.
 */
export function clearShift(block: Point[], fixed: Point[]): number {
  const span = NODE_HEIGHT + NODE_SEP;
  const forbidden: [number, number][] = [];
  for (const a of block) {
    for (const d of fixed) {
      if (Math.abs(a.x - d.x) < NODE_WIDTH + RANK_SEP / 2) forbidden.push([d.y - a.y - span, d.y - a.y + span]);
    }
  }
  forbidden.sort((a, b) => a[0] - b[0]);
  let lo = -Infinity;
  let hi = -Infinity;
  for (const [l, h] of forbidden) {
    if (l < hi) {
      hi = Math.max(hi, h);
      continue;
    }
    if (lo < 0 && 0 < hi) break;
    [lo, hi] = [l, h];
  }
  if (!(lo < 0 && 0 < hi)) return 0;
  return -lo <= hi ? lo : hi;
}

/** The runner that lays out on the calling thread. */
export const inProcess: LayoutRunner = {
  layout: (input, drawn) => Promise.resolve(drawn ? placeAdded(input, drawn) : layoutPositions(input)),
};

/** A content signature: the same nodes and edges lay out the same. */
export function signature(graph: GraphData): string {
  return [...graph.nodes.keys()].sort().join("\n") + "\n--\n" + [...graph.edges.keys()].sort().join("\n");
}

const cache = new Map<string, Promise<Map<string, Point>>>();
const CACHE_SIZE = 16;

/**
 * Node positions (top-left corners) of a whole graph; a graph laid out (or being laid out, as
 * a deep link's answer is from start-up) is answered from the cache.
 */
export function layoutGraph(runner: LayoutRunner, graph: GraphData): Promise<Map<string, Point>> {
  const key = signature(graph);
  const hit = cache.get(key);
  if (hit) return hit;
  const positions = runner.layout(toLayoutInput(graph)).then((p) => new Map(Object.entries(p)));
  cache.set(key, positions);
  positions.catch(() => cache.get(key) === positions && cache.delete(key));
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return positions;
}

/**
 * Positions of `graph` keeping those of the nodes in `drawn`: synchronous (null) when no node
 * is new, as after a collapse; else the runner places what was added.
 */
export function keepDrawn(graph: GraphData, drawn: Map<string, Point>): Map<string, Point> | null {
  const kept = new Map<string, Point>();
  for (const id of graph.nodes.keys()) {
    const p = drawn.get(id);
    if (!p) return null;
    kept.set(id, p);
  }
  return kept;
}

/** Positions of `graph` with the nodes in `drawn` kept where they are (see `placeAdded`). */
export async function placeGraph(runner: LayoutRunner, graph: GraphData, drawn: Map<string, Point>): Promise<Map<string, Point>> {
  return keepDrawn(graph, drawn) ?? new Map(Object.entries(await runner.layout(toLayoutInput(graph), Object.fromEntries(drawn))));
}
