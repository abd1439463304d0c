/**
 * Long values in narrow places: a content digest (`sha256:` and 64 hex digits) is shown by its
 * first hex digits, the rest kept beside it (hidden from view, not from the DOM, so that copying,
 * a screen reader and a test still get the whole value).
 */

/** Hex digits of a digest kept in view. */
export const DIGEST_SHOWN = 12;

/** A run of at least 24 hex digits standing alone, with its algorithm prefix when it has one. */
const DIGEST = /(?<![0-9a-z])((?:sha(?:1|224|256|384|512)|md5|blake2[bs]?|xxh(?:32|64|128)?):)?([0-9a-f]{24,})(?![0-9a-z])/gi;

/** A piece of a value: `shown` in view, then `hidden` (what is left out, '' when nothing is). */
export interface Segment {
  shown: string;
  hidden: string;
}

/**
 * `value` cut into segments: the text between digests as it is, each digest as its prefix and
 * first `keep` hex digits shown and the rest hidden. Joined back (`shown + hidden` of every
 * segment) they give `value` exactly.
 */
export function digestSegments(value: string, keep: number = DIGEST_SHOWN): Segment[] {
  const segments: Segment[] = [];
  let plain = "";
  let at = 0;
  for (const found of value.matchAll(DIGEST)) {
    const start = found.index ?? 0;
    const prefix = found[1] ?? "";
    const hex = found[2];
    plain += value.slice(at, start) + prefix + hex.slice(0, keep);
    segments.push({ shown: plain, hidden: hex.slice(keep) });
    plain = "";
    at = start + found[0].length;
  }
  plain += value.slice(at);
  if (plain || !segments.length) segments.push({ shown: plain, hidden: "" });
  return segments;
}

/** Whether `value` holds something `digestSegments` shortens. */
export function isShortened(segments: Segment[]): boolean {
  return segments.some((s) => s.hidden !== "");
}

/** The text in view of a shortened value: each hidden rest as `…`. */
export function shownText(segments: Segment[]): string {
  return segments.map((s) => s.shown + (s.hidden ? "…" : "")).join("");
}

/**
 * `text` cut after each run of `/` or `@` (`registry.example.org/`, `ml/`, `trainer:1@`,
 * `sha256:…`): where a long id, URI or image reference may wrap. Joined they give `text`.
 */
export function wrapPieces(text: string): string[] {
  return text.match(/[^/@]*(?:[/@]+|$)/g)?.filter((piece) => piece !== "") ?? [];
}
