import type { ReactNode } from "react";
import { text } from "../lib/json";

/** One labelled value; the value carries `data-field` for tests and tools. */
export function Field({ name, label, children }: { name: string; label: string; children: ReactNode }) {
  return (
    <div className="field">
      <dt>{label}</dt>
      <dd data-field={name}>{children ?? "—"}</dd>
    </div>
  );
}

/** A plain value as text, `—` when absent. */
export function Value({ value }: { value: unknown }) {
  return <>{text(value)}</>;
}

/** A list of fields. */
export function Fields({ children }: { children: ReactNode }) {
  return <dl className="fields">{children}</dl>;
}

/** Every key of an object as a field named `<prefix>.<key>`. */
export function ObjectFields({ prefix, value }: { prefix: string; value: Record<string, unknown> }) {
  const entries = Object.entries(value);
  if (!entries.length) return <p className="muted">none recorded</p>;
  return (
    <Fields>
      {entries.map(([key, v]) => (
        <Field key={key} name={`${prefix}.${key}`} label={key}>
          <Value value={v} />
        </Field>
      ))}
    </Fields>
  );
}
