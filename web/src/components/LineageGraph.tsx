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
  type ReactFlowInstance,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";
import { isArrowKey, nextFocus, type Point } from "../graph/focus";
import { NODE_HEIGHT, NODE_WIDTH } from "../graph/layout";
import { adjacency, type GraphData, type GraphEdge, type GraphNode } from "../graph/model";
import { typeStyle } from "../graph/styles";

type Activate = (id: string, select: boolean) => void;
type OnKey = (id: string, e: KeyboardEvent<HTMLDivElement>) => void;

interface NodeViewProps {
  node: GraphNode;
  /** Top-left corner, in the graph's coordinates. */
  x: number;
  y: number;
  expanded: boolean;
  expanding: boolean;
  selected: boolean;
  onPath: boolean;
  root: boolean;
  /** Whether text is drawn (see `DETAIL_ZOOM`). */
  detail: boolean;
  onActivate: Activate;
  onKey: OnKey;
}

function marks(node: GraphNode): string[] {
  const out: string[] = [];
  if (node.failed) out.push("FAILED");
  if (node.deleted) out.push("DELETED");
  if (node.placeholder) out.push("PLACEHOLDER");
  return out;
}

/**
 * One node: a box of its type's colour and shape at its place. Zoomed out (`detail` false),
 * the text, which could not be read, is not built; the accessible name and the tooltip stay.
 */
const NodeView = memo(function NodeView({ node, x, y, expanded, expanding, selected, onPath, root, detail, onActivate, onKey }: NodeViewProps) {
  const style = typeStyle(node.type);
  const flags = marks(node);
  const classes = [
    "gnode",
    `shape-${style.shape}`,
    selected && "is-selected",
    onPath && "on-path",
    expanded && "is-expanded",
    root && "is-root",
    flags.length && "is-flagged",
  ]
    .filter(Boolean)
    .join(" ");
  const state = [expanded ? "expanded" : "not expanded", selected ? "selected" : ""].filter(Boolean).join(", ");
  return (
    <div
      className={classes}
      style={{ transform: `translate(${x}px, ${y}px)`, width: NODE_WIDTH, height: NODE_HEIGHT, borderColor: style.colour, ["--type-colour" as string]: style.colour }}
      data-node-id={node.id}
      data-node-type={node.type}
      tabIndex={0}
      role="button"
      aria-pressed={selected}
      aria-label={`${style.label} ${node.label}${flags.length ? `, ${flags.join(", ")}` : ""}, ${state}. Enter expands or collapses, Space selects.`}
      onClick={(e: MouseEvent) => onActivate(node.id, e.shiftKey || e.metaKey || e.ctrlKey)}
      onKeyDown={(e) => onKey(node.id, e)}
      title={node.id}
    >
      {detail && (
        <>
          <div className="gnode-type" style={{ background: style.colour }}>
            <span aria-hidden="true">{style.glyph}</span> {style.label}
            {root ? " · start" : ""}
          </div>
          <div className="gnode-label">{node.label}</div>
          <div className="gnode-marks">
            {flags.map((f) => (
              <span key={f} className={`mark mark-${f.toLowerCase()}`}>
                {f}
              </span>
            ))}
            {node.status && !node.failed && <span className="mark">{node.status}</span>}
            {expanding ? <span className="mark">expanding…</span> : expanded ? <span className="mark">expanded −</span> : null}
          </div>
        </>
      )}
    </div>
  );
});

export interface NodeLayerProps {
  graph: GraphData;
  positions: Map<string, Point>;
  rootId: string;
  expanded: ReadonlySet<string>;
  expanding: string | null;
  selected: readonly string[];
  pathNodes: ReadonlySet<string>;
  detail: boolean;
  onActivate: Activate;
  onKey: OnKey;
}

/**
 * Every laid-out node, placed in the graph's coordinates (drawn inside React Flow's viewport,
 * above the edges). Nodes are not React Flow nodes: none is dragged, connected or measured,
 * and React Flow's own node wrappers (a store subscription and a size observer each) were
 * half of the first draw of a 200-node answer. A node is redrawn only when it moves or its
 * own state (expanded, selected, on the path) changes.
 */
export const NodeLayer = memo(function NodeLayer({ graph, positions, rootId, expanded, expanding, selected, pathNodes, detail, onActivate, onKey }: NodeLayerProps) {
  const drawn: JSX.Element[] = [];
  for (const node of graph.nodes.values()) {
    const p = positions.get(node.id);
    if (!p) continue;
    drawn.push(
      <NodeView
        key={node.id}
        node={node}
        x={p.x}
        y={p.y}
        expanded={expanded.has(node.id)}
        expanding={expanding === node.id}
        selected={selected.includes(node.id)}
        onPath={pathNodes.has(node.id)}
        root={node.id === rootId}
        detail={detail}
        onActivate={onActivate}
        onKey={onKey}
      />,
    );
  }
  return <div className="gnodes">{drawn}</div>;
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
  const flowRef = useRef<ReactFlowInstance | null>(null);
  // Fitted to the first layout up front, so nothing is drawn twice for a `fitView`.
  const [initialViewport] = useState(() => fitted(positions, size));
  const [overview, setOverview] = useState(initialViewport.zoom < DETAIL_ZOOM);
  const neighbours = useMemo(() => adjacency(graph), [graph]);
  const pathNodes = useMemo(() => new Set(path?.nodes ?? []), [path]);
  const pathEdges = useMemo(() => new Set(path?.edges ?? []), [path]);

  // The handlers read the latest props through a ref: their identity never changes, so a node
  // whose own state did not change is not drawn again (`NodeView` is memoised on its props).
  const latest = useRef({ positions, neighbours, onToggleExpand, onToggleSelect, onFocusNode });
  latest.current = { positions, neighbours, onToggleExpand, onToggleSelect, onFocusNode };
  const onActivate = useCallback((id: string, select: boolean) => {
    const { onToggleSelect: select_, onToggleExpand: expand } = latest.current;
    if (select) select_(id);
    else expand(id);
  }, []);
  // The layout in view, as `fitView` would show it (React Flow's own fits its nodes: it has none).
  const onFitView = useCallback(() => void flowRef.current?.setViewport(fitted(latest.current.positions, size), { duration: 0 }), [size]);

  // The first layout is fitted before it is drawn (`initialViewport`); every later one (an
  // expand or a collapse) is fitted here, so what was added is in view.
  const laidOut = useRef(false);
  useEffect(() => {
    if (laidOut.current) onFitView();
    else laidOut.current = positions.size > 0;
  }, [positions, onFitView]);
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

  return (
    <div className={overview ? "flow overview" : "flow"} data-zoom={overview ? "overview" : "detail"}>
    <ReactFlow
      onInit={(instance) => {
        flowRef.current = instance;
      }}
      defaultViewport={initialViewport}
      minZoom={MIN_ZOOM}
      maxZoom={MAX_ZOOM}
      // React Flow is given no nodes or edges (the layers below draw them); these keep its
      // Shift-drag selection box and its keyboard help for its own nodes out of the page.
      elementsSelectable={false}
      disableKeyboardA11y
      proOptions={{ hideAttribution: true }}
    >
      <EdgeLabelRenderer>
        <EdgeLayer graph={graph} positions={positions} pathEdges={pathEdges} detail={!overview} />
        <NodeLayer
          graph={graph}
          positions={positions}
          rootId={rootId}
          expanded={expanded}
          expanding={expanding}
          selected={selected}
          pathNodes={pathNodes}
          detail={!overview}
          onActivate={onActivate}
          onKey={onKey}
        />
      </EdgeLabelRenderer>
      <Background />
      <Controls showInteractive={false} onFitView={onFitView} />
      <ZoomWatch below={DETAIL_ZOOM} onChange={setOverview} />
      {overview && (
        <Panel position="top-right" className="overview-note">
          Overview: zoom in to read the labels
        </Panel>
      )}
    </ReactFlow>
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
