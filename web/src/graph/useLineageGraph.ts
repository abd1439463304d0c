import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { request } from "../api/client";
import { rememberProjects } from "../api/projects";
import { LINEAGE_QUERY } from "../api/queries";
import type { Point } from "./focus";
import { layoutGraph, placeGraph, signature } from "./layout";
import { layoutWorker } from "./layoutWorker";
import { fetchLineage, lineageVariables, type LineageArgs } from "./lineageRequest";

export type { LineageArgs };
import { fromLineage, unionGraphs, type GraphData } from "./model";
import { markExpandPainted, markLineageDrawn, noteTiming, PERF_MARKS } from "./perf";

export interface LineageState {
  graph: GraphData | null;
  positions: Map<string, Point> | null;
  error: Error | null;
  loading: boolean;
  notFound: boolean;
  expanded: ReadonlySet<string>;
  expanding: string | null;
  /** Why the last expand added nothing, if it did not. */
  expandNotice: string | null;
  toggleExpand: (id: string) => void;
}

/**
 * The lineage answer of the route's arguments, with expansions (depth-1 answers from a node,
 * same direction, types and as-of) merged in, laid out by dagre in a worker: the answer whole,
 * then each expansion beside the nodes already drawn, which keep their places.
 */
export function useLineageGraph(args: LineageArgs): LineageState {
  const key = JSON.stringify(args);
  const [base, setBase] = useState<GraphData | null>(null);
  const [expansions, setExpansions] = useState<Map<string, GraphData>>(new Map());
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const [notFound, setNotFound] = useState(false);
  const [expanding, setExpanding] = useState<string | null>(null);
  const [expandNotice, setExpandNotice] = useState<string | null>(null);
  const [positions, setPositions] = useState<Map<string, Point> | null>(null);
  const [laidOut, setLaidOut] = useState<string | null>(null);
  const timing = useRef<{ kind: "lineage" | "expand"; at: number } | null>(null);
  /** The positions drawn for this route: an expand or a collapse moves none of them. */
  const drawn = useRef<Map<string, Point> | null>(null);
  /**
   * Which load of the route's answer the state belongs to, counted up by each one: an expand
   * answered after the user moved on (another route, or the same one loaded again) belongs to
   * an earlier load, and is dropped rather than merged into a graph it was not asked from.
   */
  const load = useRef(0);

  useEffect(() => {
    let live = true;
    load.current += 1;
    const parsed = JSON.parse(key) as LineageArgs;
    timing.current = { kind: "lineage", at: performance.now() };
    setLoading(true);
    setError(null);
    setNotFound(false);
    setBase(null);
    setExpansions(new Map());
    setExpanding(null);
    setExpandNotice(null);
    setPositions(null);
    drawn.current = null;
    fetchLineage(parsed)
      .then((answer) => {
        if (!live) return;
        rememberProjects(answer);
        if (PERF_MARKS) noteTiming("lineageAnsweredMs", performance.now() - (timing.current?.at ?? performance.now()));
        if (!answer.lineage) {
          setNotFound(true);
          setBase(null);
        } else {
          setBase(fromLineage(answer.lineage));
        }
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e : new Error(String(e))))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [key]);

  const graph = useMemo(() => (base ? unionGraphs(base, expansions.values()) : null), [base, expansions]);
  const graphSig = useMemo(() => (graph ? signature(graph) : null), [graph]);

  useEffect(() => {
    if (!graph) return undefined;
    let live = true;
    const sig = graphSig;
    const started = performance.now();
    // The answer is laid out whole; what an expand adds is placed beside what is drawn.
    const before = drawn.current;
    (before ? placeGraph(layoutWorker(), graph, before) : layoutGraph(layoutWorker(), graph))
      .then((p) => {
        if (!live) return;
        if (PERF_MARKS) noteTiming("layoutMs", performance.now() - started);
        drawn.current = p;
        setPositions(p);
        setLaidOut(sig);
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e : new Error(String(e))));
    return () => {
      live = false;
    };
  }, [graph, graphSig]);

  // Perf marks (of the benchmark build) once the laid-out graph is in the DOM.
  useEffect(() => {
    if (!PERF_MARKS || !graph || !positions || laidOut !== graphSig || !timing.current) return undefined;
    const { kind, at } = timing.current;
    timing.current = null;
    return kind === "lineage" ? markLineageDrawn(graph.nodes.size, at) : markExpandPainted(graph.nodes.size, at);
  }, [graph, graphSig, positions, laidOut]);

  const toggleExpand = useCallback(
    (id: string) => {
      if (expansions.has(id)) {
        timing.current = { kind: "expand", at: performance.now() };
        setExpansions((old) => {
          const next = new Map(old);
          next.delete(id);
          return next;
        });
        return;
      }
      const parsed = JSON.parse(key) as LineageArgs;
      const asked = load.current;
      const current = () => load.current === asked;
      setExpanding(id);
      setExpandNotice(null);
      const at = performance.now();
      request(LINEAGE_QUERY, lineageVariables(parsed, id, 1))
        .then((answer) => {
          rememberProjects(answer);
          if (!current()) return;
          if (!answer.lineage) {
            setExpandNotice(`No lineage for ${id}, or you may not read it.`);
            return;
          }
          const extra = fromLineage(answer.lineage);
          if (extra.nodes.size <= 1) setExpandNotice(`${id} has no further neighbours in this direction.`);
          timing.current = { kind: "expand", at };
          setExpansions((old) => new Map(old).set(id, extra));
        })
        .catch((e: unknown) => current() && setExpandNotice(`Expanding ${id} failed: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => current() && setExpanding(null));
    },
    [expansions, key],
  );

  const expanded = useMemo(() => new Set(expansions.keys()), [expansions]);
  // The last layout stays drawn while a new one is computed (new nodes appear when it lands).
  return { graph, positions, error, loading, notFound, expanded, expanding, expandNotice, toggleExpand };
}
