/** Hash routes: every page is a deep link (`#/node/<id>`...) that survives a reload. */

export type Direction = "up" | "down" | "both";

export type Route =
  | { page: "search"; q: string; type: string; project: string }
  | { page: "node"; id: string }
  | { page: "lineage"; id: string; direction: Direction; depth: number; types: string[]; asOf: string }
  | { page: "impact"; id: string }
  | { page: "diff"; a: string; b: string }
  | { page: "reproduce"; id: string }
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
  switch (head) {
    case undefined:
    case "search":
      return { page: "search", q: get("q"), type: get("type"), project: get("project") };
    case "node":
      return rest.length === 1 ? { page: "node", id: rest[0] } : unknown(raw);
    case "lineage":
      if (rest.length !== 1) return unknown(raw);
      return {
        page: "lineage",
        id: rest[0],
        direction: direction(params.get("direction")),
        depth: depth(params.get("depth")),
        types: get("types").split(",").map((t) => t.trim()).filter(Boolean),
        asOf: get("asOf"),
      };
    case "impact":
      return rest.length === 1 ? { page: "impact", id: rest[0] } : unknown(raw);
    case "diff":
      return rest.length === 2 ? { page: "diff", a: rest[0], b: rest[1] } : unknown(raw);
    case "reproduce":
      return rest.length === 1 ? { page: "reproduce", id: rest[0] } : unknown(raw);
    case "compare":
      return rest.length === 1 ? { page: "compare", experiment: rest[0], metric: get("metric") } : unknown(raw);
    case "best":
      return rest.length === 1
        ? {
            page: "best",
            model: rest[0],
            metric: get("metric"),
            dataset: get("dataset"),
            project: get("project"),
            higher: params.get("higher") === "1",
          }
        : unknown(raw);
    case "digest":
      return rest.length === 1 ? { page: "digest", project: rest[0], since: get("since") || "7d", until: get("until") } : unknown(raw);
    default:
      return unknown(raw);
  }
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
  diff: (a: string, b: string) => formatRoute({ page: "diff", a, b }),
  compare: (experiment: string) => formatRoute({ page: "compare", experiment, metric: "" }),
  digest: (project: string) => formatRoute({ page: "digest", project, since: "7d", until: "" }),
};

/** The API's Direction enum value of a route direction. */
export function apiDirection(d: Direction): "UPSTREAM" | "DOWNSTREAM" | "BOTH" {
  return d === "down" ? "DOWNSTREAM" : d === "both" ? "BOTH" : "UPSTREAM";
}
