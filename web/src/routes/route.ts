import type { Direction as ApiDirection, NodeType } from "../api/generated";
/** Hash routes: every page is a deep link (`#/node/<id>`...) that survives a reload. */

export type Direction = "up" | "down" | "both";

export type Route =
  | { page: "search"; q: string; type: string; project: string }
  | { page: "node"; id: string }
  | { page: "lineage"; id: string; direction: Direction; depth: number; types: string[]; asOf: string }
  | { page: "impact"; id: string }
  | { page: "diff"; a: string; b: string }
  | { page: "reproduce"; id: string }
  /** A model version's dossier: the one document of everything recorded about it. */
  | { page: "dossier"; id: string }
  | { page: "compare"; experiment: string; metric: string }
  | { page: "best"; model: string; metric: string; dataset: string; project: string; higher: boolean }
  /** `until` an ISO time, '' for now. */
  | { page: "digest"; project: string; since: string; until: string }
  | { page: "unknown"; hash: string };

/** The default lineage depth when the link names none (the API's own default). */
export const DEFAULT_DEPTH = 5;
/** The largest depth the API accepts. */
export const MAX_DEPTH = 20;

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function direction(value: string | null): Direction {
  return value === "down" || value === "both" ? value : "up";
}

function depth(value: string | null): number {
  const n = Number.parseInt(value ?? "", 10);
  if (!Number.isFinite(n) || n < 1) return DEFAULT_DEPTH;
  return Math.min(n, MAX_DEPTH);
}

/** Parse `location.hash` (with or without the leading `#`). */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, "");
  const [pathPart, queryPart = ""] = splitOnce(raw, "?");
  const params = new URLSearchParams(queryPart);
  const segments = pathPart.split("/").filter((s) => s !== "").map(decode);
  const [head, ...rest] = segments;
  const get = (name: string): string => params.get(name) ?? "";
  const one = ids(rest, 1)?.[0];
  switch (head) {
    case undefined:
    case "search":
      return { page: "search", q: get("q"), type: get("type"), project: get("project") };
    case "node":
      return one ? { page: "node", id: one } : unknown(raw);
    case "lineage":
      if (!one) return unknown(raw);
      return {
        page: "lineage",
        id: one,
        direction: direction(params.get("direction")),
        depth: depth(params.get("depth")),
        types: get("types").split(",").map((t) => t.trim()).filter(Boolean),
        asOf: get("asOf"),
      };
    case "impact":
      return one ? { page: "impact", id: one } : unknown(raw);
    case "diff": {
      const pair = ids(rest, 2);
      return pair ? { page: "diff", a: pair[0], b: pair[1] } : unknown(raw);
    }
    case "reproduce":
      return one ? { page: "reproduce", id: one } : unknown(raw);
    case "dossier":
      return one ? { page: "dossier", id: one } : unknown(raw);
    case "compare":
      return one ? { page: "compare", experiment: one, metric: get("metric") } : unknown(raw);
    case "best":
      return one
        ? {
            page: "best",
            model: one,
            metric: get("metric"),
            dataset: get("dataset"),
            project: get("project"),
            higher: params.get("higher") === "1",
          }
        : unknown(raw);
    case "digest":
      return one ? { page: "digest", project: one, since: get("since") || "7d", until: get("until") } : unknown(raw);
    default:
      return unknown(raw);
  }
}

/**
 * `count` ids from a route's path segments. The explorer's own links encode the `/` inside an
 * id, but a link typed or pasted by hand often does not (`#/lineage/dataset:p/raw@v1`): one
 * id is then every segment joined again; of several, each starts with its type (`run:`).
 */
function ids(segments: string[], count: number): string[] | null {
  if (segments.length === count) return segments;
  if (!segments.length) return null;
  if (count === 1) return [segments.join("/")];
  const groups: string[][] = [];
  for (const segment of segments) {
    if (!groups.length || /^[a-z][\w-]*:/i.test(segment)) groups.push([segment]);
    else groups[groups.length - 1].push(segment);
  }
  return groups.length === count ? groups.map((g) => g.join("/")) : null;
}

function unknown(hash: string): Route {
  return { page: "unknown", hash };
}

function splitOnce(text: string, sep: string): [string, string?] {
  const at = text.indexOf(sep);
  return at < 0 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}

function query(entries: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** An id as one path segment (ids hold `:`, `/` and `@`). */
function seg(id: string): string {
  return encodeURIComponent(id);
}

/** The hash (with `#`) of a route; `parseRoute(formatRoute(r))` gives `r` back. */
export function formatRoute(route: Route): string {
  switch (route.page) {
    case "search":
      return `#/search${query({ q: route.q, type: route.type, project: route.project })}`;
    case "node":
      return `#/node/${seg(route.id)}`;
    case "lineage":
      return `#/lineage/${seg(route.id)}${query({
        direction: route.direction,
        depth: route.depth,
        types: route.types.join(","),
        asOf: route.asOf,
      })}`;
    case "impact":
      return `#/impact/${seg(route.id)}`;
    case "diff":
      return `#/diff/${seg(route.a)}/${seg(route.b)}`;
    case "reproduce":
      return `#/reproduce/${seg(route.id)}`;
    case "dossier":
      return `#/dossier/${seg(route.id)}`;
    case "compare":
      return `#/compare/${seg(route.experiment)}${query({ metric: route.metric })}`;
    case "best":
      return `#/best/${seg(route.model)}${query({
        metric: route.metric,
        dataset: route.dataset,
        project: route.project,
        higher: route.higher ? "1" : undefined,
      })}`;
    case "digest":
      return `#/digest/${seg(route.project)}${query({ since: route.since, until: route.until })}`;
    case "unknown":
      return `#${route.hash}`;
  }
}

/** Shorthands for links. */
export const link = {
  node: (id: string) => formatRoute({ page: "node", id }),
  lineage: (id: string, dir: Direction = "up", d: number = DEFAULT_DEPTH) =>
    formatRoute({ page: "lineage", id, direction: dir, depth: d, types: [], asOf: "" }),
  impact: (id: string) => formatRoute({ page: "impact", id }),
  reproduce: (id: string) => formatRoute({ page: "reproduce", id }),
  dossier: (id: string) => formatRoute({ page: "dossier", id }),
  diff: (a: string, b: string) => formatRoute({ page: "diff", a, b }),
  compare: (experiment: string) => formatRoute({ page: "compare", experiment, metric: "" }),
  digest: (project: string) => formatRoute({ page: "digest", project, since: "7d", until: "" }),
};

/** The API's Direction enum value of a route direction. */
export function apiDirection(d: Direction): ApiDirection {
  return d === "down" ? "DOWNSTREAM" : d === "both" ? "BOTH" : "UPSTREAM";
}

/**
 * A route's type names as the API's NodeType values. They are sent as the link has them: the
 * service rejects a name it does not know, and the page shows its error.
 */
export function apiNodeTypes(names: readonly string[]): NodeType[] {
  return names as NodeType[];
}
