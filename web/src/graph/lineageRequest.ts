/**
 * The lineage request of a route, startable before the lineage page's code has loaded: a deep
 * link's answer is then on its way while the page's chunk is fetched and parsed.
 */

import { request } from "../api/client";
import { LINEAGE_QUERY } from "../api/queries";
import type { LineageQueryVariables } from "../api/generated";
import type { LineageAnswer } from "../api/types";
import { apiDirection, apiNodeTypes, type Direction, type Route } from "../routes/route";
import { layoutGraph } from "./layout";
import { layoutWorker } from "./layoutWorker";
import { fromLineage } from "./model";

export interface LineageArgs {
  id: string;
  direction: Direction;
  depth: number;
  types: string[];
  asOf: string;
}

/** The variables of a lineage request from `id` (the route's root, or a node being expanded). */
export function lineageVariables(args: LineageArgs, id: string, depth: number): LineageQueryVariables {
  return {
    id,
    direction: apiDirection(args.direction),
    depth,
    types: args.types.length ? apiNodeTypes(args.types) : null,
    asOf: args.asOf || null,
  };
}

/** A prefetched answer is taken only this fresh (ms); an older one is asked again. */
const FRESH_MS = 10_000;

/** The request started for the last route seen, until the page takes it. */
let started: { key: string; at: number; answer: Promise<LineageAnswer> | null } | null = null;

/**
 * Start the route's lineage request now (once per route), and its layout as soon as it is
 * answered: the page finds both under way (the layout in `layoutGraph`'s cache). Called where
 * a route is arrived at (start-up, navigation, sign-in: see `prefetchRoute`), never while
 * rendering: a render may be repeated or dropped, a request once sent is not.
 */
export function prefetchLineage(args: LineageArgs): void {
  const vars = lineageVariables(args, args.id, args.depth);
  const key = JSON.stringify(vars);
  if (started?.key === key) return;
  const answer = request(LINEAGE_QUERY, vars);
  answer
    .then((a) => a.lineage && layoutGraph(layoutWorker(), fromLineage(a.lineage)))
    .catch(() => undefined); // reported to the page that takes it
  started = { key, at: performance.now(), answer };
}

/** A lineage route's request, started before its page renders (other pages fetch their own). */
export function prefetchRoute(route: Route): void {
  if (route.page === "lineage") prefetchLineage(route);
}

/** The route's lineage answer: the prefetched request when there is one, else a new one. */
export function fetchLineage(args: LineageArgs): Promise<LineageAnswer> {
  const vars = lineageVariables(args, args.id, args.depth);
  const key = JSON.stringify(vars);
  let answer: Promise<LineageAnswer> | null = null;
  if (started?.key === key && performance.now() - started.at < FRESH_MS) {
    answer = started.answer;
    started.answer = null; // taken: a reload of the page asks again
  }
  return answer ?? request(LINEAGE_QUERY, vars);
}
