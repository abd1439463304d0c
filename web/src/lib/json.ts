/** Reading the API's JSON values: stored maps may arrive as JSON text. */

import type { Json } from "../api/types";

export type JsonObject = { [key: string]: Json };

/** `value` parsed when it is JSON text of an object or array, else as it is. */
export function decoded(value: unknown): Json {
  if (typeof value === "string") {
    const text = value.trim();
    if ((text.startsWith("{") && text.endsWith("}")) || (text.startsWith("[") && text.endsWith("]"))) {
      try {
        return JSON.parse(text) as Json;
      } catch {
        return value;
      }
    }
  }
  return (value ?? null) as Json;
}

/** `value` as an object (decoded), or an empty one. */
export function asObject(value: unknown): JsonObject {
  const v = decoded(value);
  return v && typeof v === "object" && !Array.isArray(v) ? v : {};
}

/** `value` as an array (decoded), or an empty one. */
export function asArray(value: unknown): Json[] {
  const v = decoded(value);
  return Array.isArray(v) ? v : [];
}

/** Nested objects as dotted keys: `{optim: {lr: 1}}` → `{"optim.lr": 1}`. */
export function flatten(value: unknown, prefix = ""): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, inner] of Object.entries(asObject(value))) {
    const name = `${prefix}${key}`;
    if (inner && typeof inner === "object" && !Array.isArray(inner) && Object.keys(inner).length) {
      Object.assign(out, flatten(inner, `${name}.`));
    } else {
      out[name] = inner;
    }
  }
  return out;
}

/** A value as short text for a table cell. */
export function text(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}
