/** The `diff` answer as rows to show side by side, each marked with how it differs. */

import type { Json } from "../api/types";
import { asArray, asObject, text } from "./json";

export type Change = "same" | "changed" | "added" | "removed";

export interface DiffRow {
  section: string;
  name: string;
  a: string;
  b: string;
  change: Change;
  /** Extra note, e.g. a metric delta. */
  note?: string;
}

/** The text marker shown with the highlight (colour is not the only signal). */
export function changeMarker(change: Change): string {
  return { same: "", changed: "≠ changed", added: "+ added", removed: "− removed" }[change];
}

function mapRows(section: string, value: Json | undefined): DiffRow[] {
  const d = asObject(value);
  const rows: DiffRow[] = [];
  for (const [name, v] of Object.entries(asObject(d.removed))) rows.push({ section, name, a: text(v), b: "—", change: "removed" });
  for (const [name, v] of Object.entries(asObject(d.added))) rows.push({ section, name, a: "—", b: text(v), change: "added" });
  for (const [name, v] of Object.entries(asObject(d.changed))) {
    const pair = asObject(v);
    rows.push({ section, name, a: text(pair.a), b: text(pair.b), change: "changed" });
  }
  return rows.sort((x, y) => x.name.localeCompare(y.name));
}

function pairRow(section: string, name: string, a: unknown, b: unknown): DiffRow {
  const ta = text(a);
  const tb = text(b);
  const change: Change = ta === tb ? "same" : a == null ? "added" : b == null ? "removed" : "changed";
  return { section, name, a: ta, b: tb, change };
}

/** Every row of a diff answer, section by section: params, inputs, environment, code, base, metrics. */
export function diffRows(diff: Json): DiffRow[] {
  const d = asObject(diff);
  const rows: DiffRow[] = [...mapRows("params", d.params)];
  for (const [role, v] of Object.entries(asObject(d.inputs))) {
    const io = asObject(v);
    for (const id of asArray(io.removed)) rows.push({ section: "inputs", name: role, a: text(id), b: "—", change: "removed" });
    for (const id of asArray(io.added)) rows.push({ section: "inputs", name: role, a: "—", b: text(id), change: "added" });
  }
  const env = asObject(d.environment);
  if (Object.keys(env).length) {
    rows.push(pairRow("environment", "snapshot", env.a, env.b));
    const image = asObject(env.image);
    rows.push(pairRow("environment", "image", image.a, image.b));
    rows.push(...mapRows("packages", env.packages));
  }
  const code = asObject(d.code);
  if (Object.keys(code).length) {
    const a = asObject(code.a);
    const b = asObject(code.b);
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) rows.push(pairRow("code", key, a[key], b[key]));
  }
  const base = asObject(d.base);
  if (Object.keys(base).length) {
    const started = asObject(base.started_from);
    const resumed = asObject(base.resumed_from);
    rows.push(pairRow("base", "started from", started.a, started.b));
    rows.push(pairRow("base", "resumed from", asArray(resumed.a).join(", ") || null, asArray(resumed.b).join(", ") || null));
  }
  for (const [name, v] of Object.entries(asObject(d.metrics))) {
    const m = asObject(v);
    const row = pairRow("metrics", name, m.a, m.b);
    if (typeof m.delta === "number") row.note = `Δ ${m.delta > 0 ? "+" : ""}${text(m.delta)}`;
    rows.push(row);
  }
  return rows;
}

export interface ChainLevel {
  level: number;
  a: string | null;
  b: string | null;
  differs: boolean;
  summary: string;
}

/** The levels walked up the base-model chain. */
export function diffChain(diff: Json): ChainLevel[] {
  return asArray(asObject(diff).chain).map((entry) => {
    const e = asObject(entry);
    return {
      level: typeof e.level === "number" ? e.level : 0,
      a: typeof e.a === "string" ? e.a : null,
      b: typeof e.b === "string" ? e.b : null,
      differs: e.differs === true,
      summary: text(e.summary),
    };
  });
}
