/** Left-to-right layered layout of a lineage graph with elkjs, memoised by graph content. */

import type { ElkNode } from "elkjs/lib/elk-api";
import type { Point } from "./focus";
import type { GraphData } from "./model";

/** Drawn node size (the node component uses the same). */
export const NODE_WIDTH = 210;
export const NODE_HEIGHT = 66;

/** The part of an ELK instance the layout needs (the worker API or the bundled one). */
export interface ElkLike {
  layout(graph: ElkNode): Promise<ElkNode>;
}

/**
 * Layout options: thorough for small graphs, cheaper passes for big ones (measured: a
 * 1,000-node answer lays out in about 1 s once the worker is warm).
 */
export function layoutOptions(nodeCount: number): Record<string, string> {
  const options: Record<string, string> = {
    "elk.algorithm": "layered",
    "elk.direction": "RIGHT",
    "elk.spacing.nodeNode": "24",
    "elk.layered.spacing.nodeNodeBetweenLayers": "90",
    "elk.spacing.componentComponent": "40",
    "elk.edgeRouting": "POLYLINE",
  };
  if (nodeCount > 120) {
    options["elk.layered.thoroughness"] = "1";
    options["elk.layered.crossingMinimization.greedySwitch.type"] = "OFF";
    options["elk.layered.layering.strategy"] = "LONGEST_PATH";
    options["elk.layered.unnecessaryBendpoints"] = "false";
  }
  if (nodeCount > 500) {
    // Keeps the (sorted) input order within layers instead of sweeping: much cheaper.
    options["elk.layered.crossingMinimization.strategy"] = "INTERACTIVE";
  }
  return options;
}

/**
 * A synthetic graph of `n` nodes (a tree with some cross edges), laid out once when the
 * worker starts so that its code is compiled and optimised before the first real answer.
 */
export function warmUpGraph(n: number): ElkNode {
  const children: ElkNode[] = [];
  const edges: { id: string; sources: string[]; targets: string[] }[] = [];
  for (let i = 0; i < n; i++) {
    children.push({ id: `w${i}`, width: NODE_WIDTH, height: NODE_HEIGHT });
    if (i > 0) edges.push({ id: `t${i}`, sources: [`w${Math.floor((i - 1) / 3)}`], targets: [`w${i}`] });
    if (i > 10 && i % 7 === 0) edges.push({ id: `c${i}`, sources: [`w${i - 5}`], targets: [`w${i}`] });
  }
  return { id: `warm${n}`, layoutOptions: layoutOptions(n), children, edges };
}

/**
 * The ELK graph: data flows from a source to what was derived from it, so each API edge
 * (derived → source) is laid out from its `to` to its `from`, sources on the left.
 */
export function toElk(graph: GraphData): ElkNode {
  const ids = [...graph.nodes.keys()].sort();
  return {
    id: "root",
    layoutOptions: layoutOptions(ids.length),
    children: ids.map((id) => ({ id, width: NODE_WIDTH, height: NODE_HEIGHT })),
    edges: [...graph.edges.values()]
      .filter((e) => e.from !== e.to)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((e) => ({ id: e.key, sources: [e.to], targets: [e.from] })),
  };
}

/** A content signature: the same nodes and edges lay out the same. */
export function signature(graph: GraphData): string {
  return [...graph.nodes.keys()].sort().join("\n") + "\n--\n" + [...graph.edges.keys()].sort().join("\n");
}

const cache = new Map<string, Map<string, Point>>();
const CACHE_SIZE = 16;

/** Node positions (top-left corners); answers from the cache when the graph was laid out. */
export async function layoutGraph(elk: ElkLike, graph: GraphData): Promise<Map<string, Point>> {
  const key = signature(graph);
  const hit = cache.get(key);
  if (hit) return hit;
  const result = await elk.layout(toElk(graph));
  const positions = new Map<string, Point>();
  for (const child of result.children ?? []) positions.set(child.id, { x: child.x ?? 0, y: child.y ?? 0 });
  cache.set(key, positions);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return positions;
}
