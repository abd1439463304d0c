import {
  Background,
  Controls,
  EdgeLabelRenderer,
  Panel,
  Position,
  ReactFlow,
  getBezierPath,
  getViewportForBounds,
  useStore,
  type Node,
  type NodeProps,
  type ReactFlowInstance,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { createContext, memo, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";
import { isArrowKey, nextFocus, type Point } from "../graph/focus";
import { NODE_HEIGHT, NODE_WIDTH } from "../graph/layout";
import { adjacency, type GraphData, type GraphEdge, type GraphNode } from "../graph/model";
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

type ProvNode = Node<NodeData, "prov">;

function marks(node: GraphNode): string[] {
  const out: string[] = [];
  if (node.failed) out.push("FAILED");
  if (node.deleted) out.push("DELETED");
  if (node.placeholder) out.push("PLACEHOLDER");
  return out;
}

/**
 * Whether text is drawn (the zoom is at reading size). Zoomed out, a node is a block of its
 * type's colour and shape and an edge a line: what cannot be read is not built.
 */
const Detail = createContext(true);

const ProvNodeView = memo(function ProvNodeView({ data }: NodeProps<ProvNode>) {
  const { node } = data;
  const detail = useContext(Detail);
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
      style={{ width: NODE_WIDTH, height: NODE_HEIGHT, borderColor: style.colour, ["--type-colour" as string]: style.colour }}
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
      {detail && (
        <>
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
        </>
      )}
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

interface EdgeViewProps {
  edge: GraphEdge;
  /** Where it leaves its source (the right side's middle) and reaches the derived node. */
  sx: number;
  sy: number;
  tx: number;
  ty: number;
  onPath: boolean;
  detail: boolean;
}

/** One edge: a curve from the source's right side to the derived node's left, and its label. */
const EdgeView = memo(function EdgeView({ edge, sx, sy, tx, ty, onPath, detail }: EdgeViewProps) {
  const back = tx < sx;
  const [path, labelX, labelY] = back
    ? backEdgePath(sx, sy, tx, ty)
    : getBezierPath({ sourceX: sx, sourceY: sy, sourcePosition: Position.Right, targetX: tx, targetY: ty, targetPosition: Position.Left });
  const [head, ...rest] = edge.label.split(" · ");
  // A plain SVG text with a halo (see styles.css), not a measured label box. The type on one
  // line, its details below.
  return (
    <g data-edge={edge.key} className={onPath ? "gedge on-path" : "gedge"}>
      <path
        className="gedge-path"
        d={path}
        fill="none"
        markerEnd={onPath ? "url(#gedge-arrow-path)" : "url(#gedge-arrow)"}
        style={{ strokeWidth: onPath ? 3 : 1.2, stroke: onPath ? PATH_COLOUR : EDGE_COLOUR, strokeDasharray: back ? "5 4" : undefined }}
      />
      {detail && head && (
        <text className="gedge-label" x={labelX} y={labelY} textAnchor="middle" dominantBaseline="middle">
          <title>{edge.label}</title>
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

const EDGE_COLOUR = "#667";
const PATH_COLOUR = "#d97706";

function arrow(id: string, colour: string) {
  return (
    <marker id={id} viewBox="0 0 10 10" refX="10" refY="5" markerWidth="12" markerHeight="12" markerUnits="userSpaceOnUse" orient="auto-start-reverse">
      <path d="M 0 0 L 10 5 L 0 10 z" fill={colour} />
    </marker>
  );
}

export interface EdgeLayerProps {
  graph: GraphData;
  positions: Map<string, Point>;
  pathEdges: ReadonlySet<string>;
  detail: boolean;
}

/**
 * Every edge of the graph in one SVG, in the graph's coordinates (drawn inside React Flow's
 * viewport, under the nodes). Edges are not React Flow edges: nothing here is connected or
 * dragged by hand, and each React Flow edge would follow its store on its own (a third of
 * the first draw of a 200-node answer). Each edge is redrawn only when its ends move, its
 * label changes or it joins or leaves the highlighted path.
 */
export const EdgeLayer = memo(function EdgeLayer({ graph, positions, pathEdges, detail }: EdgeLayerProps) {
  const drawn: JSX.Element[] = [];
  for (const edge of graph.edges.values()) {
    // Drawn in the direction of data flow: from the source (`to`) to the derived (`from`).
    const source = positions.get(edge.to);
    const derived = positions.get(edge.from);
    if (!source || !derived) continue;
    drawn.push(
      <EdgeView
        key={edge.key}
        edge={edge}
        sx={source.x + NODE_WIDTH}
        sy={source.y + NODE_HEIGHT / 2}
        tx={derived.x}
        ty={derived.y + NODE_HEIGHT / 2}
        onPath={pathEdges.has(edge.key)}
        detail={detail}
      />,
    );
  }
  return (
    <svg className="gedges">
      <defs>
        {arrow("gedge-arrow", EDGE_COLOUR)}
        {arrow("gedge-arrow-path", PATH_COLOUR)}
      </defs>
      {drawn}
    </svg>
  );
});

const nodeTypes = { prov: ProvNodeView };

/** Every node's size, given as measured: React Flow draws a node without waiting to measure it. */
const SIZE = { width: NODE_WIDTH, height: NODE_HEIGHT };

type NodeFlags = Pick<NodeData, "expanded" | "expanding" | "selected" | "onPath" | "root">;

function sameFlags(a: NodeFlags, b: NodeFlags): boolean {
  return a.expanded === b.expanded && a.expanding === b.expanding && a.selected === b.selected && a.onPath === b.onPath && a.root === b.root;
}

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

const MIN_ZOOM = 0.05;
const MAX_ZOOM = 2;
/** Below this zoom the text of nodes and edges is too small to read: only the shapes are drawn. */
export const DETAIL_ZOOM = 0.35;

/** The viewport that shows every laid-out node in a box of `size` (as `fitView` would). */
export function fitted(positions: Map<string, Point>, size: { width: number; height: number }) {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of positions.values()) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x + NODE_WIDTH);
    maxY = Math.max(maxY, p.y + NODE_HEIGHT);
  }
  if (!positions.size) return { x: 0, y: 0, zoom: 1 };
  const bounds = { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
  return getViewportForBounds(bounds, size.width, size.height, MIN_ZOOM, MAX_ZOOM, 0.1);
}

function focusNode(id: string): void {
  document.querySelector<HTMLElement>(`[data-node-id="${CSS.escape(id)}"]`)?.focus();
}

/** Tells `onChange` whether the zoom is below `below` (inside a `ReactFlow`). */
function ZoomWatch({ below, onChange }: { below: number; onChange: (low: boolean) => void }) {
  const low = useStore((s) => s.transform[2] < below);
  useEffect(() => onChange(low), [low, onChange]);
  return null;
}

/** The graph drawn in a box of `size`. */
export function LineageFlow(props: LineageGraphProps & { size: { width: number; height: number } }) {
  const { size, graph, positions, rootId, expanded, expanding, selected, path, onToggleExpand, onToggleSelect, onFocusNode } = props;
  const flowRef = useRef<ReactFlowInstance<ProvNode> | null>(null);
  // Fitted to the first layout up front, so nothing is drawn twice for a `fitView`.
  const [initialViewport] = useState(() => fitted(positions, size));
  const [overview, setOverview] = useState(initialViewport.zoom < DETAIL_ZOOM);
  const neighbours = useMemo(() => adjacency(graph), [graph]);
  const pathNodes = useMemo(() => new Set(path?.nodes ?? []), [path]);
  const pathEdges = useMemo(() => new Set(path?.edges ?? []), [path]);

  // The first layout is fitted before it is drawn (`initialViewport`); every later one (an expand or a collapse) is
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

  // The handlers read the latest props through a ref: their identity never changes, so a node
  // whose own data did not change keeps its data object and is not drawn again.
  const latest = useRef({ positions, neighbours, onToggleExpand, onToggleSelect, onFocusNode });
  latest.current = { positions, neighbours, onToggleExpand, onToggleSelect, onFocusNode };
  const onActivate = useCallback((id: string, select: boolean) => {
    const { onToggleSelect: select_, onToggleExpand: expand } = latest.current;
    if (select) select_(id);
    else expand(id);
  }, []);
  const onKey = useCallback((id: string, e: KeyboardEvent<HTMLDivElement>) => {
    const now = latest.current;
    if (isArrowKey(e.key)) {
      e.preventDefault();
      e.stopPropagation();
      const next = nextFocus(id, e.key, now.positions, now.neighbours);
      if (next) {
        const p = now.positions.get(next);
        const flow = flowRef.current;
        if (p && flow) void flow.setCenter(p.x + NODE_WIDTH / 2, p.y + NODE_HEIGHT / 2, { zoom: Math.max(flow.getZoom(), 0.8), duration: 0 });
        focusNode(next);
        now.onFocusNode(next);
      }
    } else if (e.key === "Enter") {
      e.preventDefault();
      now.onToggleExpand(id);
    } else if (e.key === " ") {
      e.preventDefault();
      now.onToggleSelect(id);
    }
  }, []);

  // React Flow keeps what it knows of a node while the node object stays the same: a node
  // (or edge) is rebuilt only when its position or its own data changed, so an expand or a
  // selection redraws what changed, not the whole graph.
  const drawnNodes = useRef(new Map<string, ProvNode>());
  const nodes = useMemo<ProvNode[]>(() => {
    const before = drawnNodes.current;
    const now = new Map<string, ProvNode>();
    for (const node of graph.nodes.values()) {
      const p = positions.get(node.id);
      if (!p) continue;
      const flags = {
        expanded: expanded.has(node.id),
        expanding: expanding === node.id,
        selected: selected.includes(node.id),
        onPath: pathNodes.has(node.id),
        root: node.id === rootId,
      };
      const old = before.get(node.id);
      const sameData = old !== undefined && old.data.node === node && sameFlags(old.data, flags);
      if (sameData && old.position.x === p.x && old.position.y === p.y) {
        now.set(node.id, old);
        continue;
      }
      now.set(node.id, {
        id: node.id,
        type: "prov",
        position: p,
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        measured: SIZE,
        draggable: false,
        selectable: false,
        focusable: false,
        data: sameData ? old.data : { node, ...flags, onActivate, onKey },
      });
    }
    drawnNodes.current = now;
    return [...now.values()];
  }, [graph, positions, expanded, expanding, selected, pathNodes, rootId, onActivate, onKey]);

  return (
    <div className={overview ? "flow overview" : "flow"} data-zoom={overview ? "overview" : "detail"}>
    <Detail.Provider value={!overview}>
    <ReactFlow
      nodes={nodes}
      nodeTypes={nodeTypes}
      onInit={(instance) => {
        flowRef.current = instance;
      }}
      defaultViewport={initialViewport}
      minZoom={MIN_ZOOM}
      maxZoom={MAX_ZOOM}
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable={false}
      nodesFocusable={false}
      edgesFocusable={false}
      disableKeyboardA11y
      proOptions={{ hideAttribution: true }}
    >
      <EdgeLabelRenderer>
        <EdgeLayer graph={graph} positions={positions} pathEdges={pathEdges} detail={!overview} />
      </EdgeLabelRenderer>
      <Background />
      <Controls showInteractive={false} />
      <ZoomWatch below={DETAIL_ZOOM} onChange={setOverview} />
      {overview && (
        <Panel position="top-right" className="overview-note">
          Overview: zoom in to read the labels
        </Panel>
      )}
    </ReactFlow>
    </Detail.Provider>
    </div>
  );
}

/** The lineage graph: laid out left to right, data flowing from sources to what was derived. */
export function LineageGraph(props: LineageGraphProps) {
  const box = useRef<HTMLDivElement | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  useLayoutEffect(() => {
    const r = box.current?.getBoundingClientRect();
    if (r) setSize({ width: r.width, height: r.height });
  }, []);
  return (
    <div className="graph" aria-label="Lineage graph" role="group" ref={box}>
      {size && (
<LineageFlow {...props} size={size} />
      )}
    </div>
  );
}
