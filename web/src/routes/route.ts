import type { Direction as ApiDirection, EffectGrouping as ApiEffectGrouping, LessonKind, NodeType } from "../api/generated";
/** Hash routes: every page is a deep link (`#/node/<id>`...) that survives a reload. */

export type Direction = "up" | "down" | "both";

/** How an effects table groups the changes of a numeric parameter: by its values, or by factor (x2). */
export type EffectGrouping = "value" | "factor";

/**
 * The search page's lessons mode (`#/search?mode=lessons&q=...`): what earlier attempts
 * concluded, kept to a project, kinds (`run`, `experiment`, `dataset`, `model`, `deployment`,
 * as the link names them), a status, a metric condition (`final:val/loss<1.5`), a param
 * (`lr=2e-5`) and a dataset version used; '' (or no kind) for none.
 */
export interface LessonsRoute {
  page: "search";
  mode: "lessons";
  q: string;
  project: string;
  kinds: string[];
  status: string;
  metric: string;
  param: string;
  uses: string;
}

export type Route =
  /** The search by name, id, URI or checksum: no `mode` (its links are those it always had). */
  | { page: "search"; mode?: undefined; q: string; type: string; project: string }
  | LessonsRoute
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
  /** What worked in a project: its one-change pairs by change. `since` an ISO time, '' for every pair. */
  | { page: "effects"; project: string; metric: string; by: EffectGrouping; since: string }
  /**
   * What a model version or an experiment cost; `base` adds the base model version's share;
   * `metric` (with the evaluation set's `datasets` and `suite`, and `higher`) asks a model
   * version's gain over the previous best and the accelerator-hours per point ('' for none).
   */
  | { page: "cost"; id: string; base: boolean; metric: string; datasets: string[]; suite: string; higher: boolean }
  /** The guards of a project's conventions: metric spellings, names breaking their rule, outputs out of place. */
  | { page: "guards"; project: string }
  /** A run beside the pilot it scales up: resources, other changes (flagged), the metric trend. */
  | { page: "scale-up"; run: string }
  /** A run's checkpoints stage by stage: saved metrics, evaluations, each metric's change. */
  | { page: "checkpoints"; run: string; metric: string }
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

function grouping(value: string | null): EffectGrouping {
  return value === "factor" ? "factor" : "value";
}

/** The kinds of a lessons link: `kind=run&kind=model` or `kind=run,model`, lower case, once each. */
function kinds(params: URLSearchParams): string[] {
  const named = params.getAll("kind").flatMap((v) => v.split(","));
  return [...new Set(named.map((k) => k.trim().toLowerCase()).filter(Boolean))];
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
      if (params.get("mode") === "lessons") {
        return {
          page: "search",
          mode: "lessons",
          q: get("q"),
          project: get("project"),
          kinds: kinds(params),
          status: get("status"),
          metric: get("metric"),
          param: get("param"),
          uses: get("uses"),
        };
      }
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
    case "effects":
      return one
        ? { page: "effects", project: one, metric: get("metric"), by: grouping(params.get("by")), since: get("since") }
        : unknown(raw);
    case "cost":
      return one
        ? {
            page: "cost",
            id: one,
            base: params.get("base") === "1",
            metric: get("metric"),
            datasets: params.getAll("dataset").filter(Boolean),
            suite: get("suite"),
            higher: params.get("higher") === "1",
          }
        : unknown(raw);
    case "guards":
      return one ? { page: "guards", project: one } : unknown(raw);
    case "scale-up":
      return one ? { page: "scale-up", run: one } : unknown(raw);
    case "checkpoints":
      return one ? { page: "checkpoints", run: one, metric: get("metric") } : unknown(raw);
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

/** The query part of a link: empty values left out, a list as its key repeated. */
function query(entries: Record<string, string | number | readonly string[] | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(entries)) {
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else if (value !== undefined && value !== "") params.set(key, String(value));
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
      if (route.mode === "lessons") {
        return `#/search${query({
          mode: "lessons",
          q: route.q,
          project: route.project,
          kind: route.kinds,
          status: route.status,
          metric: route.metric,
          param: route.param,
          uses: route.uses,
        })}`;
      }
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
    case "effects":
      return `#/effects/${seg(route.project)}${query({ metric: route.metric, by: route.by, since: route.since })}`;
    case "cost":
      return `#/cost/${seg(route.id)}${query({
        base: route.base ? "1" : undefined,
        metric: route.metric,
        dataset: route.metric ? route.datasets : undefined,
        suite: route.metric ? route.suite : undefined,
        higher: route.metric && route.higher ? "1" : undefined,
      })}`;
    case "guards":
      return `#/guards/${seg(route.project)}`;
    case "scale-up":
      return `#/scale-up/${seg(route.run)}`;
    case "checkpoints":
      return `#/checkpoints/${seg(route.run)}${query({ metric: route.metric })}`;
    case "unknown":
      return `#${route.hash}`;
  }
}

/** Shorthands for links. */
export const link = {
  search: (q = "", project = "") => formatRoute({ page: "search", q, type: "", project }),
  lessons: (q = "", project = "", filters: Partial<Omit<LessonsRoute, "page" | "mode" | "q" | "project">> = {}) =>
    formatRoute({ page: "search", mode: "lessons", q, project, kinds: [], status: "", metric: "", param: "", uses: "", ...filters }),
  node: (id: string) => formatRoute({ page: "node", id }),
  lineage: (id: string, dir: Direction = "up", d: number = DEFAULT_DEPTH) =>
    formatRoute({ page: "lineage", id, direction: dir, depth: d, types: [], asOf: "" }),
  impact: (id: string) => formatRoute({ page: "impact", id }),
  reproduce: (id: string) => formatRoute({ page: "reproduce", id }),
  dossier: (id: string) => formatRoute({ page: "dossier", id }),
  diff: (a: string, b: string) => formatRoute({ page: "diff", a, b }),
  compare: (experiment: string) => formatRoute({ page: "compare", experiment, metric: "" }),
  digest: (project: string) => formatRoute({ page: "digest", project, since: "7d", until: "" }),
  effects: (project: string, metric = "") => formatRoute({ page: "effects", project, metric, by: "value", since: "" }),
  cost: (id: string, base = false) => formatRoute({ page: "cost", id, base, metric: "", datasets: [], suite: "", higher: false }),
  guards: (project: string) => formatRoute({ page: "guards", project }),
  scaleUp: (run: string) => formatRoute({ page: "scale-up", run }),
  checkpoints: (run: string, metric = "") => formatRoute({ page: "checkpoints", run, metric }),
};

/** The API's Direction enum value of a route direction. */
export function apiDirection(d: Direction): ApiDirection {
  return d === "down" ? "DOWNSTREAM" : d === "both" ? "BOTH" : "UPSTREAM";
}

/** The API's EffectGrouping enum value of a route grouping. */
export function apiGrouping(by: EffectGrouping): ApiEffectGrouping {
  return by === "factor" ? "FACTOR" : "VALUE";
}

/**
 * A lessons route's kinds as the API's LessonKind values. They are sent as the link has them:
 * the service rejects a kind it does not know, and the page shows its error.
 */
export function apiLessonKinds(names: readonly string[]): LessonKind[] {
  return names.map((k) => k.toUpperCase()) as LessonKind[];
}

/**
 * A route's type names as the API's NodeType values. They are sent as the link has them: the
 * service rejects a name it does not know, and the page shows its error.
 */
export function apiNodeTypes(names: readonly string[]): NodeType[] {
  return names as NodeType[];
}
