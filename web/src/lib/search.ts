/** What the search box asks: by name/id (search), exact id (node), and by URI or checksum (artifact). */

import type { WhoisQueryVariables } from "../api/generated";
import type { NodeSummary, WhoisAnswer } from "../api/types";
import { apiNodeTypes } from "../routes/route";

/** WHOIS_QUERY's variables; `project` is the one `search` keeps to (null: every one the token may read). */
export type WhoisVariables = WhoisQueryVariables;

/** A URI-looking query: a scheme, or an absolute path. */
export function looksLikeUri(q: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(q) || q.startsWith("/");
}

/** A checksum-looking query: long hex, optionally `algo:` first. */
export function looksLikeChecksum(q: string): boolean {
  return /^([a-z0-9-]+:)?[0-9a-f]{16,}$/i.test(q);
}

/** An id-looking query: `<kind>:` then more (a provgraph id), and neither a URI nor a checksum. */
export function looksLikeId(q: string): boolean {
  return /^[a-z_]+:[^/]/i.test(q) && !looksLikeUri(q) && !looksLikeChecksum(q);
}

/** The WHOIS_QUERY variables of a search box text, a type and a project ("" for none). */
export function whoisVariables(q: string, type: string, project = ""): WhoisVariables {
  const text = q.trim();
  return {
    text,
    id: text,
    types: type ? apiNodeTypes([type]) : null,
    project: project || null,
    uri: looksLikeUri(text) ? text : null,
    checksum: looksLikeChecksum(text) ? text : null,
    byUri: looksLikeUri(text),
    byChecksum: looksLikeChecksum(text),
    byId: looksLikeId(text),
  };
}

export interface SearchHit {
  node: NodeSummary;
  matchedBy: string[];
}

/** `MODEL_VERSION` → `ModelVersion`, to filter answers that the API did not filter. */
export function typeName(enumValue: string): string {
  return enumValue
    .toLowerCase()
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}

/**
 * One list of hits: exact id first, then file matches, then name matches; deduplicated, and
 * filtered by type and project (`search` is filtered by the API, the id and file lookups not).
 */
export function mergeHits(answer: WhoisAnswer, type: string, project: string): SearchHit[] {
  const hits = new Map<string, SearchHit>();
  const add = (nodes: readonly NodeSummary[] | null | undefined, how: string) => {
    for (const node of nodes ?? []) {
      const hit = hits.get(node.id) ?? { node, matchedBy: [] };
      if (!hit.matchedBy.includes(how)) hit.matchedBy.push(how);
      hits.set(node.id, hit);
    }
  };
  add(answer.exact ? [answer.exact] : [], "id");
  add(answer.byUri, "URI");
  add(answer.byChecksum, "checksum");
  add(answer.search, "name or id");
  return [...hits.values()].filter(
    (h) => (!type || h.node.type === typeName(type)) && (!project || h.node.project === project),
  );
}
