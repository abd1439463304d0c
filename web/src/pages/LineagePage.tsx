import { useCallback, useEffect, useMemo, useState } from "react";
import { LineageControls } from "../components/LineageControls";
import { LineageGraph } from "../components/LineageGraph";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { shortestPath } from "../graph/model";
import { typeStyle } from "../graph/styles";
import { useLineageGraph } from "../graph/useLineageGraph";
import { link, type Route } from "../routes/route";

type LineageRoute = Extract<Route, { page: "lineage" }>;

const LEGEND = ["DatasetVersion", "Run", "Checkpoint", "ModelVersion", "Evaluation", "Deployment", "Experiment", "Environment", "Dataset", "Model"];

/** The lineage graph of the route's arguments: expand, collapse, select two for a path. */
export function LineagePage({ route }: { route: LineageRoute }) {
  const args = useMemo(
    () => ({ id: route.id, direction: route.direction, depth: route.depth, types: route.types, asOf: route.asOf }),
    [route.id, route.direction, route.depth, route.types, route.asOf],
  );
  const state = useLineageGraph(args);
  const [selected, setSelected] = useState<string[]>([]);
  const [focused, setFocused] = useState<string | null>(null);
  useEffect(() => setSelected([]), [args]);

  const toggleSelect = useCallback(
    (id: string) => setSelected((old) => (old.includes(id) ? old.filter((x) => x !== id) : [...old, id].slice(-2))),
    [],
  );
  const path = useMemo(
    () => (state.graph && selected.length === 2 ? shortestPath(state.graph, selected[0], selected[1]) : null),
    [state.graph, selected],
  );

  if (state.error) return <ErrorView error={state.error} id={route.id} />;
  if (state.notFound) return <NotFound id={route.id} />;
  const graph = state.graph;
  const focusedNode = focused && graph ? graph.nodes.get(focused) : null;

  return (
    <section className="lineage-page">
      <h2>
        Lineage of <NodeLink id={route.id} />
      </h2>
      <LineageControls route={route} />
      {graph?.truncated && (
        <p className="notice" role="status" data-testid="truncated">
          ⚠ Truncated: the depth or node limit was hit; not every node is shown. Expand nodes or narrow the types.
        </p>
      )}
      <ul className="legend" aria-label="Legend">
        {LEGEND.map((t) => {
          const s = typeStyle(t);
          return (
            <li key={t} className={`legend-item shape-${s.shape}`} style={{ borderColor: s.colour }}>
              <span aria-hidden="true">{s.glyph}</span> {s.label}
            </li>
          );
        })}
        <li className="legend-item">FAILED / DELETED / PLACEHOLDER marked in text</li>
      </ul>
      <p className="muted" id="graph-help">
        Click or press Enter on a node to expand one more hop (again to collapse). Shift-click or Space selects; select two
        nodes to highlight the path between them. Arrow keys move between neighbouring nodes.
      </p>
      <div className="lineage-status" role="status" aria-live="polite">
        {state.loading && <Loading what="Loading the lineage" />}
        {graph && (
          <span data-testid="graph-counts">
            {graph.nodes.size} nodes, {graph.edges.size} edges{state.positions ? "" : " (laying out…)"}
          </span>
        )}
        {selected.length > 0 && (
          <span data-testid="selection">
            {" "}
            · Selected: {selected.join(" and ")}
            {selected.length === 2 && (path ? ` · path of ${path.edges.length} edge(s) highlighted` : " · no path between them in this graph")}
            {" "}
            <button type="button" onClick={() => setSelected([])}>
              Clear selection
            </button>
          </span>
        )}
      </div>
      {state.expandNotice && (
        <p className="notice" role="status" data-testid="expand-notice">
          {state.expandNotice}
        </p>
      )}
      {focusedNode && (
        <p className="focused">
          Focused: <NodeLink id={focusedNode.id} type={focusedNode.type} label={focusedNode.label} /> ·{" "}
          <a href={link.lineage(focusedNode.id, route.direction, route.depth)}>re-centre here</a>
        </p>
      )}
      {graph && state.positions && (
        <LineageGraph
          key={JSON.stringify(args)}
          graph={graph}
          positions={state.positions}
          rootId={route.id}
          expanded={state.expanded}
          expanding={state.expanding}
          selected={selected}
          path={path}
          onToggleExpand={state.toggleExpand}
          onToggleSelect={toggleSelect}
          onFocusNode={setFocused}
        />
      )}
    </section>
  );
}
