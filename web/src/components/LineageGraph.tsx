import {
  BaseEdge,
  Handle,
  Background,
  Controls,
  MarkerType,
  Position,
  ReactFlow,
  getBezierPath,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeProps,
  type ReactFlowInstance,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { memo, useCallback, useEffect, useMemo, useRef, type KeyboardEvent, type MouseEvent } from "react";
import { isArrowKey, nextFocus, type Point } from "../graph/focus";
import { NODE_HEIGHT, NODE_WIDTH } from "../graph/layout";
import { adjacency, type GraphData, type GraphNode } from "../graph/model";
import { typeStyle } from "../graph/styles";

interface NodeData extends Record<string, unknown> {
  node: GraphNode;
  expanded: boolean;
  expanding: boolean;
  selected: boolean;
  onPath: boolean;
  root: boolean;
  onActivate: (id: string, select: boolean) => void;
  onKey: (id: string, e: KeyboardEvent<HTMLDivElement>) => void;
}

interface EdgeData extends Record<string, unknown> {
  key: string;
  label: string;
  onPath: boolean;
}

type ProvNode = Node<NodeData, "prov">;
type ProvEdge = Edge<EdgeData, "prov">;

function marks(node: GraphNode): string[] {
  const out: string[] = [];
  if (node.failed) out.push("FAILED");
  if (node.deleted) out.push("DELETED");
  if (node.placeholder) out.push("PLACEHOLDER");
  return out;
}

const ProvNodeView = memo(function ProvNodeView({ data }: NodeProps<ProvNode>) {
  const { node } = data;
  const style = typeStyle(node.type);
  const flags = marks(node);
  const classes = [
    "gnode",
    `shape-${style.shape}`,
    data.selected && "is-selected",
    data.onPath && "on-path",
    data.expanded && "is-expanded",
    data.root && "is-root",
    flags.length && "is-flagged",
  ]
    .filter(Boolean)
    .join(" ");
  const state = [data.expanded ? "expanded" : "not expanded", data.selected ? "selected" : ""].filter(Boolean).join(", ");
  return (
    <div
      className={classes}
      style={{ width: NODE_WIDTH, height: NODE_HEIGHT, borderColor: style.colour }}
      data-node-id={node.id}
      data-node-type={node.type}
      tabIndex={0}
      role="button"
      aria-pressed={data.selected}
      aria-label={`${style.label} ${node.label}${flags.length ? `, ${flags.join(", ")}` : ""}, ${state}. Enter expands or collapses, Space selects.`}
      onClick={(e: MouseEvent) => data.onActivate(node.id, e.shiftKey || e.metaKey || e.ctrlKey)}
      onKeyDown={(e) => data.onKey(node.id, e)}
      title={node.id}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="gnode-type" style={{ background: style.colour }}>
        <span aria-hidden="true">{style.glyph}</span> {style.label}
        {data.root ? " · start" : ""}
      </div>
      <div className="gnode-label">{node.label}</div>
      <div className="gnode-marks">
        {flags.map((f) => (
          <span key={f} className={`mark mark-${f.toLowerCase()}`}>
            {f}
          </span>
        ))}
        {node.status && !node.failed && <span className="mark">{node.status}</span>}
        {data.expanding ? <span className="mark">expanding…</span> : data.expanded ? <span className="mark">expanded −</span> : null}
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

/**
 * An edge that runs against the layout's left-to-right flow (a cycle: a run that resumed from
 * its own checkpoint) loops below its two nodes instead of crossing back through them.
 */
export function backEdgePath(sx: number, sy: number, tx: number, ty: number): [string, number, number] {
  const drop = NODE_HEIGHT * 0.9;
  const path = `M ${sx},${sy} C ${sx + 70},${sy + drop * 1.6} ${tx - 70},${ty + drop * 1.6} ${tx},${ty}`;
  return [path, (sx + tx) / 2, Math.max(sy, ty) + drop * 1.2];
}

const ProvEdgeView = memo(function ProvEdgeView(props: EdgeProps<ProvEdge>) {
  const back = props.targetX < props.sourceX;
  const [path, labelX, labelY] = back
    ? backEdgePath(props.sourceX, props.sourceY, props.targetX, props.targetY)
    : getBezierPath(props);
  const onPath = props.data?.onPath ?? false;
  const [head, ...rest] = (props.data?.label ?? "").split(" · ");
  // A plain SVG text with a halo (see styles.css), not a measured label box: a thousand
  // edges draw without a second render each. The type on one line, its details below.
  return (
    <g data-edge={props.data?.key} className={onPath ? "gedge on-path" : "gedge"}>
      <BaseEdge
        id={props.id}
        path={path}
        markerEnd={props.markerEnd}
        interactionWidth={0}
        style={{ strokeWidth: onPath ? 3 : 1.2, stroke: onPath ? "#d97706" : "#667", strokeDasharray: back ? "5 4" : undefined }}
      />
      {head && (
        <text className="gedge-label" x={labelX} y={labelY} textAnchor="middle" dominantBaseline="middle">
          <title>{props.data?.label}</title>
          <tspan x={labelX} dy={rest.length ? "-0.55em" : 0}>
            {head}
          </tspan>
          {rest.length > 0 && (
            <tspan x={labelX} dy="1.1em">
              {rest.join(" · ")}
            </tspan>
          )}
        </text>
      )}
    </g>
  );
});

const nodeTypes = { prov: ProvNodeView };

/** Handle places given up front (every node has the same size), so edges need no measuring. */
const HANDLES: NonNullable<ProvNode["handles"]> = [
  { type: "target", position: Position.Left, x: 0, y: NODE_HEIGHT / 2, width: 1, height: 1 },
  { type: "source", position: Position.Right, x: NODE_WIDTH - 1, y: NODE_HEIGHT / 2, width: 1, height: 1 },
];
const edgeTypes = { prov: ProvEdgeView };

export interface LineageGraphProps {
  graph: GraphData;
  positions: Map<string, Point>;
  rootId: string;
  expanded: ReadonlySet<string>;
  expanding: string | null;
  selected: readonly string[];
  path: { nodes: string[]; edges: string[] } | null;
  onToggleExpand: (id: string) => void;
  onToggleSelect: (id: string) => void;
  onFocusNode: (id: string) => void;
}

function focusNode(id: string): void {
  document.querySelector<HTMLElement>(`[data-node-id="${CSS.escape(id)}"]`)?.focus();
}

function Flow(props: LineageGraphProps) {
  const { graph, positions, rootId, expanded, expanding, selected, path, onToggleExpand, onToggleSelect, onFocusNode } = props;
  const flowRef = useRef<ReactFlowInstance<ProvNode, ProvEdge> | null>(null);
  const neighbours = useMemo(() => adjacency(graph), [graph]);
  const pathNodes = useMemo(() => new Set(path?.nodes ?? []), [path]);
  const pathEdges = useMemo(() => new Set(path?.edges ?? []), [path]);

  // The first layout is fitted by `fitView`; every later one (an expand or a collapse) is
  // fitted here once React Flow has the new nodes, so what was added is in view.
  const laidOut = useRef(false);
  useEffect(() => {
    if (!laidOut.current) {
      laidOut.current = positions.size > 0;
      return undefined;
    }
    const frame = requestAnimationFrame(() => {
      void flowRef.current?.fitView({ duration: 0 });
    });
    return () => cancelAnimationFrame(frame);
  }, [positions]);

  const onActivate = useCallback(
    (id: string, select: boolean) => (select ? onToggleSelect(id) : onToggleExpand(id)),
    [onToggleExpand, onToggleSelect],
  );
  const onKey = useCallback(
    (id: string, e: KeyboardEvent<HTMLDivElement>) => {
      if (isArrowKey(e.key)) {
        e.preventDefault();
        e.stopPropagation();
        const next = nextFocus(id, e.key, positions, neighbours);
        if (next) {
          const p = positions.get(next);
          const flow = flowRef.current;
          if (p && flow) void flow.setCenter(p.x + NODE_WIDTH / 2, p.y + NODE_HEIGHT / 2, { zoom: Math.max(flow.getZoom(), 0.8), duration: 0 });
          focusNode(next);
          onFocusNode(next);
        }
      } else if (e.key === "Enter") {
        e.preventDefault();
        onToggleExpand(id);
      } else if (e.key === " ") {
        e.preventDefault();
        onToggleSelect(id);
      }
    },
    [positions, neighbours, onToggleExpand, onToggleSelect, onFocusNode],
  );

  const nodes = useMemo<ProvNode[]>(() => {
    const out: ProvNode[] = [];
    for (const node of graph.nodes.values()) {
      const p = positions.get(node.id);
      if (!p) continue;
      out.push({
        id: node.id,
        type: "prov",
        position: p,
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        handles: HANDLES,
        draggable: false,
        selectable: false,
        focusable: false,
        data: {
          node,
          expanded: expanded.has(node.id),
          expanding: expanding === node.id,
          selected: selected.includes(node.id),
          onPath: pathNodes.has(node.id),
          root: node.id === rootId,
          onActivate,
          onKey,
        },
      });
    }
    return out;
  }, [graph, positions, expanded, expanding, selected, pathNodes, rootId, onActivate, onKey]);

  const edges = useMemo<ProvEdge[]>(() => {
    const out: ProvEdge[] = [];
    for (const edge of graph.edges.values()) {
      if (!positions.has(edge.from) || !positions.has(edge.to)) continue;
      // Drawn in the direction of data flow: from the source (`to`) to the derived (`from`).
      out.push({
        id: edge.key,
        source: edge.to,
        target: edge.from,
        type: "prov",
        focusable: false,
        selectable: false,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        data: { key: edge.key, label: edge.label, onPath: pathEdges.has(edge.key) },
      });
    }
    return out;
  }, [graph, positions, pathEdges]);

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onInit={(instance) => {
        flowRef.current = instance;
      }}
      fitView
      minZoom={0.05}
      maxZoom={2}
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable={false}
      nodesFocusable={false}
      edgesFocusable={false}
      disableKeyboardA11y
      proOptions={{ hideAttribution: true }}
    >
      <Background />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}

/** The lineage graph: laid out left to right, data flowing from sources to what was derived. */
export function LineageGraph(props: LineageGraphProps) {
  return (
    <div className="graph" aria-label="Lineage graph" role="group">
      <Flow {...props} />
    </div>
  );
}
