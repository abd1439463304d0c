/** Quality gates of a dataset version, whatever shape they were recorded in. */

import { asObject, decoded, text } from "./json";

export interface Gate {
  name: string;
  /** true pass, false fail, null unknown. */
  passed: boolean | null;
  detail: string;
}

function verdict(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const v = value.toLowerCase();
    if (["pass", "passed", "ok", "success", "true"].includes(v)) return true;
    if (["fail", "failed", "error", "false"].includes(v)) return false;
  }
  return null;
}

function fromRecord(name: string, record: Record<string, unknown>): Gate {
  const passed = verdict(record.passed ?? record.pass ?? record.status ?? record.result ?? record.ok);
  const rest = Object.entries(record)
    .filter(([k]) => !["name", "gate", "passed", "pass", "status", "result", "ok"].includes(k))
    .map(([k, v]) => `${k}: ${text(v)}`)
    .join(", ");
  return { name, passed, detail: rest };
}

/**
 * Gates from a list (`[{name, passed|status, ...}]`) or a map (`{name: true}` or
 * `{name: {passed, ...}}`).
 */
export function normaliseGates(value: unknown): Gate[] {
  const v = decoded(value);
  if (Array.isArray(v)) {
    return v.map((item, i) => {
      const record = asObject(item);
      const name = String(record.name ?? record.gate ?? `gate ${i + 1}`);
      return fromRecord(name, record);
    });
  }
  return Object.entries(asObject(v)).map(([name, inner]) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? fromRecord(name, inner as Record<string, unknown>)
      : { name, passed: verdict(inner), detail: verdict(inner) === null ? text(inner) : "" },
  );
}

/** The text of a verdict (always shown beside the icon). */
export function verdictText(passed: boolean | null): { icon: string; label: string } {
  if (passed === true) return { icon: "✔", label: "pass" };
  if (passed === false) return { icon: "✘", label: "fail" };
  return { icon: "?", label: "unknown" };
}
