/**
 * Quality gates of a dataset version, as the data holds them. The event contract records
 * `{dedup_rate, mix_ratio: {source: ratio}, checks: [{name, passed, value}]}`: each check is a
 * gate with a verdict, the other entries are measurements (an empty map is nothing recorded).
 * Older or foreign shapes are read too: a list of gate records, or a map of verdicts.
 */

import { asObject, decoded, flatten, text, type JsonObject } from "./json";

export interface Gate {
  name: string;
  /** true pass, false fail, null unknown. */
  passed: boolean | null;
  detail: string;
}

/** A value measured on the version, without a verdict (`dedup_rate 0.12`). */
export interface Measure {
  name: string;
  value: string;
}

export interface QualityGates {
  gates: Gate[];
  measures: Measure[];
}

const VERDICT_KEYS = ["passed", "pass", "status", "result", "ok"];

function verdict(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const v = value.toLowerCase();
    if (["pass", "passed", "ok", "success", "true"].includes(v)) return true;
    if (["fail", "failed", "error", "false"].includes(v)) return false;
  }
  return null;
}

function isRecord(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function hasVerdict(record: JsonObject): boolean {
  return VERDICT_KEYS.some((k) => k in record);
}

function fromRecord(name: string, record: JsonObject): Gate {
  const passed = verdict(record.passed ?? record.pass ?? record.status ?? record.result ?? record.ok);
  const rest = Object.entries(record)
    .filter(([k]) => !["name", "gate", ...VERDICT_KEYS].includes(k))
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${text(v)}`)
    .join(", ");
  return { name, passed, detail: rest };
}

/** Each item of a list of gate records (`[{name, passed|status, ...}]`); `list` names unnamed ones. */
function listGates(items: unknown[], list: string | null): Gate[] {
  return items.map((item, i) => {
    if (!isRecord(item)) return { name: `${list ?? "gate"} ${i + 1}`, passed: verdict(item), detail: verdict(item) === null ? text(item) : "" };
    const name = item.name ?? item.gate;
    return fromRecord(name != null ? text(name) : `${list ?? "gate"} ${i + 1}`, item);
  });
}

/** A measurement's value as text: a map as `key value` pairs (`web 0.9, code 0.1`). */
function measureText(value: unknown): string {
  if (isRecord(value)) {
    return Object.entries(flatten(value))
      .map(([k, v]) => `${k} ${text(v)}`)
      .join(", ");
  }
  return text(value);
}

/** The gates and measurements of a `qualityGates` value (an object, a list, or their JSON text). */
export function readQualityGates(value: unknown): QualityGates {
  const v = decoded(value);
  if (Array.isArray(v)) return { gates: listGates(v, null), measures: [] };
  const gates: Gate[] = [];
  const measures: Measure[] = [];
  for (const [name, inner] of Object.entries(asObject(v))) {
    if (inner === null || inner === undefined) continue; // not recorded
    if (Array.isArray(inner)) {
      gates.push(...listGates(inner, name)); // `checks: [...]`: each check is a row
    } else if (isRecord(inner)) {
      if (hasVerdict(inner)) gates.push(fromRecord(name, inner));
      else if (Object.keys(inner).length) measures.push({ name, value: measureText(inner) });
      // An empty map (the contract's default `mix_ratio: {}`) records nothing.
    } else if (typeof inner === "boolean" || verdict(inner) !== null) {
      gates.push({ name, passed: verdict(inner), detail: "" });
    } else {
      measures.push({ name, value: text(inner) });
    }
  }
  return { gates, measures };
}

/** The text of a verdict (always shown beside the icon). */
export function verdictText(passed: boolean | null): { icon: string; label: string } {
  if (passed === true) return { icon: "✔", label: "pass" };
  if (passed === false) return { icon: "✘", label: "fail" };
  return { icon: "?", label: "unknown" };
}
