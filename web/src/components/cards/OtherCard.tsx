import type { NodeCard } from "../../api/types";
import { asObject, text } from "../../lib/json";
import { Field, Fields, ObjectFields } from "../Field";
import { NodeLink } from "../NodeLink";

type Item = { id: string; name?: string | null; version?: string | null; runNumber?: number | null; step?: number | null; key?: string | null; status?: string | null };

const SKIP = new Set(["__typename", "id", "type", "project", "firstSeenAt", "lastEventAt", "deletedAt", "placeholder", "properties"]);

function isItem(value: unknown): value is Item {
  return !!value && typeof value === "object" && typeof (value as Item).id === "string";
}

function itemLabel(item: Item): string {
  const named = [item.name ?? item.key, item.version, item.runNumber != null ? `#${item.runNumber}` : null, item.step != null ? `step ${item.step}` : null]
    .filter((v) => v != null)
    .join(" ");
  return `${named || item.id}${item.status ? ` (${item.status})` : ""}`;
}

/** The card of every other type: its typed fields, links to related nodes, stored properties. */
export function OtherCard({ node }: { node: NodeCard }) {
  const fields: [string, unknown][] = Object.entries(node);
  const entries = fields.filter(([k]) => !SKIP.has(k));
  return (
    <section>
      <h3>Details</h3>
      <Fields>
        {entries.map(([key, value]) => {
          if (Array.isArray(value) && value.every(isItem)) {
            return (
              <Field key={key} name={key} label={key}>
                {value.length ? (
                  <ul>
                    {value.map((item) => (
                      <li key={item.id}>
                        <NodeLink id={item.id} label={itemLabel(item)} />
                      </li>
                    ))}
                  </ul>
                ) : (
                  "—"
                )}
              </Field>
            );
          }
          if (isItem(value)) {
            return (
              <Field key={key} name={key} label={key}>
                <NodeLink id={value.id} label={itemLabel(value)} />
              </Field>
            );
          }
          if (Array.isArray(value) && value.every((v) => v && typeof v === "object" && isItem((v as { modelVersion?: unknown }).modelVersion))) {
            return (
              <Field key={key} name={key} label={key}>
                <ul>
                  {(value as { modelVersion: Item; trafficShare?: number | null }[]).map((s) => (
                    <li key={s.modelVersion.id}>
                      <NodeLink id={s.modelVersion.id} label={itemLabel(s.modelVersion)} />
                      {s.trafficShare != null ? ` — ${text(s.trafficShare)} of traffic` : ""}
                    </li>
                  ))}
                </ul>
              </Field>
            );
          }
          if (value && typeof value === "object" && !Array.isArray(value)) {
            return (
              <Field key={key} name={key} label={key}>
                <ObjectFields prefix={key} value={asObject(value)} />
              </Field>
            );
          }
          return (
            <Field key={key} name={key} label={key}>
              {text(value)}
            </Field>
          );
        })}
      </Fields>
      <details>
        <summary>Stored properties</summary>
        <ObjectFields prefix="properties" value={asObject(node.properties)} />
      </details>
    </section>
  );
}
