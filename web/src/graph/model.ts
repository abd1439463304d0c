/** The lineage graph model: API answers → nodes and edges, merged expansions, labels. */

import type { ApiEdge, Json, LineageData, NodeSummary } from "../api/types";

/** A drawn node. */
export interface GraphNode {
  id: string;
  type: string;
  /** Human label: name and version, run number... (falls back to the id). */
  label: string;
  project: string | null;
  status: string | null;
  placeholder: boolean;
  deleted: boolean;
  /** A failed run (shown with text, not only colour). */
  failed: boolean;
}

/** A drawn edge, in the API's direction (from the derived node to its source). */
export interface GraphEdge {
  key: string;
  from: string;
  to: string;
  type: string;
  /** Relationship type, then role / transform / weight where present. */
  label: string;
}

export interface GraphData {
  nodes: Map<string, GraphNode>;
  edges: Map<string, GraphEdge>;
  truncated: boolean;
}

/** The `data-edge` value and key of an edge: `<from>|<to>|<TYPE>`. */
export function edgeKey(from: string, to: string, type: string): string {
  return `${from}|${to}|${type}`;
}

/** A node's short human label. */
export function nodeLabel(node: NodeSummary): string {
  const named = node.name ?? node.key ?? node.suite ?? null;
  switch (node.type) {
    case "Run":
      return [named, node.runNumber != null ? `#${node.runNumber}` : null].filter(Boolean).join(" ") || node.id;
    case "Experiment":
      return node.number != null ? `experiment ${node.number}${node.key ? ` (${node.key})` : ""}` : node.key ?? node.id;
    case "Checkpoint":
      return node.step != null ? `step ${node.step}` : node.id;
    default:
      if (named && node.version) return `${named} ${node.version.startsWith("v") ? node.version : `v${node.version}`}`;
      return named ?? node.id;
  }
}

/** A GraphNode from an answer's node. */
export function toGraphNode(node: NodeSummary): GraphNode {
  return {
    id: node.id,
    type: node.type,
    label: nodeLabel(node),
    project: node.project,
    status: node.status ?? null,
    placeholder: node.placeholder,
    deleted: node.deletedAt != null,
    failed: node.type === "Run" && node.status === "failed",
  };
}

function parseProperties(props: Json): Record<string, Json> {
  if (typeof props === "string") {
    try {
      return parseProperties(JSON.parse(props) as Json);
    } catch {
      return {};
    }
  }
  return props && typeof props === "object" && !Array.isArray(props) ? props : {};
}

/** `USED · role train`, `DERIVED_FROM · transform dedupe`, `… · weight 0.5`. */
export function edgeLabel(edge: ApiEdge): string {
  const props = parseProperties(edge.properties);
  const parts = [edge.type];
  for (const name of ["role", "transform", "weight", "traffic_share"]) {
    const value = props[name];
    if (value !== undefined && value !== null && value !== "") parts.push(`${name.replace("_", " ")} ${String(value)}`);
  }
  return parts.join(" · ");
}

/** The graph of one lineage answer. */
export function fromLineage(answer: LineageData): GraphData {
  const nodes = new Map<string, GraphNode>();
  nodes.set(answer.root.id, toGraphNode(answer.root));
  for (const node of answer.nodes) nodes.set(node.id, toGraphNode(node));
  const edges = new Map<string, GraphEdge>();
  for (const edge of answer.edges) {
    // An edge to a node the answer left out (types filter, cap) cannot be drawn.
    if (!nodes.has(edge.from) || !nodes.has(edge.to)) continue;
    const key = edgeKey(edge.from, edge.to, edge.type);
    edges.set(key, { key, from: edge.from, to: edge.to, type: edge.type, label: edgeLabel(edge) });
  }
  return { nodes, edges, truncated: answer.truncated };
}

/** The union of the base answer and every expansion still open. */
export function unionGraphs(base: GraphData, expansions: Iterable<GraphData>): GraphData {
  const nodes = new Map(base.nodes);
  const edges = new Map(base.edges);
  let truncated = base.truncated;
  for (const extra of expansions) {
    for (const [id, node] of extra.nodes) if (!nodes.has(id)) nodes.set(id, node);
    for (const [key, edge] of extra.edges) edges.set(key, edge);
    truncated = truncated || extra.truncated;
  }
  return { nodes, edges, truncated };
}

/** The nodes an expansion would add (not in the base, not in another open expansion). */
export function addedBy(base: GraphData, expansions: Map<string, GraphData>, origin: string): string[] {
  const extra = expansions.get(origin);
  if (!extra) return [];
  const others = [...expansions].filter(([id]) => id !== origin).map(([, g]) => g);
  const rest = unionGraphs(base, others);
  return [...extra.nodes.keys()].filter((id) => !rest.nodes.has(id));
}

/** Undirected adjacency of a graph. */
export function adjacency(graph: GraphData): Map<string, { node: string; edge: string }[]> {
  const adj = new Map<string, { node: string; edge: string }[]>();
  for (const id of graph.nodes.keys()) adj.set(id, []);
  for (const edge of graph.edges.values()) {
    adj.get(edge.from)?.push({ node: edge.to, edge: edge.key });
    adj.get(edge.to)?.push({ node: edge.from, edge: edge.key });
  }
  return adj;
}

/** The shortest path between two nodes, ignoring edge direction; null when unconnected. */
export function shortestPath(graph: GraphData, a: string, b: string): { nodes: string[]; edges: string[] } | null {
  if (!graph.nodes.has(a) || !graph.nodes.has(b)) return null;
  const adj = adjacency(graph);
  const previous = new Map<string, { node: string; edge: string } | null>([[a, null]]);
  const queue = [a];
  for (let i = 0; i < queue.length; i++) {
    const current = queue[i];
    if (current === b) break;
    for (const next of adj.get(current) ?? []) {
      if (previous.has(next.node)) continue;
      previous.set(next.node, { node: current, edge: next.edge });
      queue.push(next.node);
    }
  }
  if (!previous.has(b)) return null;
  const nodes = [b];
  const edges: string[] = [];
  for (let step = previous.get(b); step; step = previous.get(step.node)) {
    nodes.unshift(step.node);
    edges.unshift(step.edge);
  }
  return { nodes, edges };
}
