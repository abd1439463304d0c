/**
 * A `diff` answer's dataset version steps (`dataset_versions`): when the two runs used two
 * versions of one dataset, what each version recorded, side by side, as `provgraph diff`
 * prints them (`recipes/version_steps.py`: `step_lines`).
 */

import type { Json } from "../api/types";
import { asArray, asObject, text } from "./json";

export interface VersionFact {
  name: string;
  a: Json;
  b: Json;
  changed: boolean;
}

export interface VersionStep {
  role: string;
  dataset: string;
  a: string;
  b: string;
  facts: VersionFact[];
  /** The names of the facts that differ. */
  changed: string[];
}

/** The steps of a diff answer (none when the runs used no two versions of one dataset). */
export function versionSteps(diff: Json): VersionStep[] {
  return asArray(asObject(diff).dataset_versions).map((entry) => {
    const s = asObject(entry);
    return {
      role: text(s.role),
      dataset: text(s.dataset),
      a: text(s.a),
      b: text(s.b),
      facts: asArray(s.facts).map((f) => {
        const fact = asObject(f);
        return { name: text(fact.name), a: fact.a ?? null, b: fact.b ?? null, changed: fact.changed === true };
      }),
      changed: asArray(s.changed).map(text),
    };
  });
}

/** JSON with sorted keys and `, ` / `: ` between items, as the CLI writes a nested value. */
function compact(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(compact).join(", ")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${compact(value[k] ?? null)}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** A cleaning rule (`filter pii-scrub {"entities": ["email"]}`) or a mix part (`dataset:p/a@v1 x0.7 (filter)`). */
function part(value: { [key: string]: Json }): string {
  if ("dataset_version" in value) {
    const weight = value.weight == null ? "" : ` x${text(value.weight)}`;
    const how = value.transform ? ` (${text(value.transform)})` : "";
    return `${text(value.dataset_version)}${weight}${how}`;
  }
  const params = asObject(value.params);
  const extra = Object.keys(params).length ? ` ${compact(params)}` : "";
  return `${text(value.kind ?? "")} ${text(value.name ?? "")}${extra}`.trim();
}

/** One side of a fact as the CLI shows it: `-` for none, text as it is, rules and parts joined by `; `. */
export function factText(value: Json): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length && value.every((v) => v !== null && typeof v === "object" && !Array.isArray(v))) {
    return value.map((v) => part(v as { [key: string]: Json })).join("; ");
  }
  return compact(value);
}

/** `dataset dataset:p/web (train): dataset:p/web@v1 -> dataset:p/web@v2: change_note, split`. */
export function stepHead(step: VersionStep): string {
  return `dataset ${step.dataset} (${step.role}): ${step.a} -> ${step.b}: ${step.changed.join(", ") || "nothing recorded differs"}`;
}
