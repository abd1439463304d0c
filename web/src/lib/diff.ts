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

/**
 * A row whose values differ in an aspect that the answer says did not change (`changed:
 * false`): shown as the same, with the reason, so that the page highlights what the API counts.
 */
function notAChange(row: DiffRow, reason: string): DiffRow {
  return row.change === "same" ? row : { ...row, change: "same", note: reason };
}

/** The checkpoints of `resumed` that were not saved by `run` (`checkpoint:<run key>/<step>`). */
function foreignCheckpoints(resumed: Json[], run: unknown): string[] {
  const own = typeof run === "string" ? `checkpoint:${run.replace(/^run:/, "")}/` : null;
  return resumed.map(text).filter((id) => own === null || !id.startsWith(own));
}

/**
 * The other recorded elements that changed (driver, CUDA, NCCL, frameworks, system settings,
 * Python, base image), one row each, named as `env-diff` names them: `driver_version`,
 * `compute_libs.cuda`. The image and the packages have rows of their own above.
 */
function environmentRows(changes: Json | undefined): DiffRow[] {
  return asArray(changes).flatMap((entry) => {
    const c = asObject(entry);
    const section = text(c.section);
    if (section === "image" || section === "packages") return [];
    const name = section === text(c.name) ? section : `${section}.${text(c.name)}`;
    return [pairRow("environment", name, c.a, c.b)];
  });
}

/** Every row of a diff answer, section by section: params, inputs, environment, code, base, resources, metrics. */
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
    const snapshot = pairRow("environment", "snapshot", env.a, env.b);
    // Another snapshot with the same recorded contents is not a change of environment.
    rows.push(env.changed === false ? notAChange(snapshot, "same recorded contents: not a change") : snapshot);
    const image = asObject(env.image);
    rows.push(pairRow("environment", "image", image.a, image.b));
    rows.push(...mapRows("packages", env.packages));
    rows.push(...environmentRows(env.changes));
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
    const runs = asObject(d.runs);
    rows.push(pairRow("base", "started from", started.a, started.b));
    const resumedRow = pairRow("base", "resumed from", asArray(resumed.a).join(", ") || null, asArray(resumed.b).join(", ") || null);
    // A resume from the run's own checkpoint continues it after an interruption: not a cause.
    const foreignDiffer =
      foreignCheckpoints(asArray(resumed.a), runs.a ?? d.a).join(", ") !==
      foreignCheckpoints(asArray(resumed.b), runs.b ?? d.b).join(", ");
    if (!foreignDiffer) rows.push(notAChange(resumedRow, "a resume from the run's own checkpoint: not a change"));
    else if (base.changed === false) rows.push(notAChange(resumedRow, "resumed at the same steps: not a change"));
    else rows.push(resumedRow);
  }
  // Resources (machines, devices, accelerator, parallelism): in the answer only when they differ.
  rows.push(...mapRows("resources", d.resources));
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
