import type { NodeCardOf, Ref } from "../../api/types";
import { readQualityGates } from "../../lib/gates";
import { asArray, asObject, text } from "../../lib/json";
import { Field, Fields, ObjectFields, Value } from "../Field";
import { NodeLink } from "../NodeLink";
import { Verdict } from "../Verdict";

const label = (r: Ref) => [r.name, r.version].filter(Boolean).join(" ") || r.id;

/** A dataset version: source and compliance, change, cleaning, split, quality gates, use. */
export function DatasetVersionCard({ node }: { node: NodeCardOf<"DatasetVersion"> }) {
  const d = node;
  const quality = readQualityGates(d.qualityGates);
  const rules = asArray(d.cleaningRules);
  // `previousVersion` is a version label (`v1`): its node is found among the dataset's versions.
  // Failing that, its id is built as the service builds version ids: `dataset:<project>/<name>@<label>`.
  const previousId = d.previousVersion
    ? (d.dataset?.versions.find((v) => v.version === d.previousVersion)?.id ??
      (d.dataset?.name ? `dataset:${node.project}/${d.dataset.name}@${d.previousVersion}` : null))
    : null;
  return (
    <>
      <section>
        <h3>Source and compliance</h3>
        <Fields>
          <Field name="sourceUri" label="Source">
            <Value value={d.sourceUri} />
          </Field>
          <Field name="sourceObtainedBy" label="Obtained by">
            <Value value={d.sourceObtainedBy} />
          </Field>
          <Field name="sourceLicence" label="Licence">
            <Value value={d.sourceLicence} />
          </Field>
          <Field name="sourceComplianceNote" label="Compliance note">
            <Value value={d.sourceComplianceNote} />
          </Field>
          <Field name="storageUri" label="Stored at">
            <Value value={d.storageUri} />
          </Field>
          <Field name="checksum" label="Checksum">
            <code>{text(d.checksum)}</code>
          </Field>
          <Field name="recordCount" label="Records">
            <Value value={d.recordCount} />
          </Field>
          <Field name="dataset" label="Dataset">
            {d.dataset ? <NodeLink id={d.dataset.id} type="Dataset" label={d.dataset.name} /> : "—"}
          </Field>
        </Fields>
      </section>
      <section>
        <h3>Change</h3>
        <Fields>
          <Field name="changeNote" label="Change note">
            <Value value={d.changeNote} />
          </Field>
          <Field name="previousVersion" label="Previous version">
            {previousId ? (
              <NodeLink id={previousId} type="DatasetVersion" label={`${d.dataset?.name ?? ""} ${d.previousVersion ?? ""}`} />
            ) : (
              <Value value={d.previousVersion} />
            )}
          </Field>
          <Field name="producedBy" label="Produced by">
            {d.producedBy ? <NodeLink id={d.producedBy.id} type="Run" label={d.producedBy.name} /> : "—"}
          </Field>
          <Field name="derivedFrom" label="Derived from">
            {d.derivedFrom.length ? (
              <ul>
                {d.derivedFrom.map((x) => (
                  <li key={x.datasetVersion.id}>
                    <NodeLink id={x.datasetVersion.id} type="DatasetVersion" label={label(x.datasetVersion)} />
                    {x.transform ? ` by ${x.transform}` : ""}
                  </li>
                ))}
              </ul>
            ) : (
              "—"
            )}
          </Field>
        </Fields>
      </section>
      <section>
        <h3>Cleaning rules</h3>
        {rules.length ? (
          <table data-field="cleaningRules">
            <thead>
              <tr>
                <th>Kind</th>
                <th>Name</th>
                <th>Parameters</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r, i) => {
                const rule = asObject(r);
                return (
                  <tr key={i}>
                    <td>{text(rule.kind)}</td>
                    <td data-field={`cleaningRules.${text(rule.name ?? i)}`}>{text(rule.name ?? r)}</td>
                    <td>{rule.params !== undefined ? text(rule.params) : "—"}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        ) : (
          <p data-field="cleaningRules">{d.cleaningRuleNames.length ? d.cleaningRuleNames.join(", ") : "none recorded"}</p>
        )}
      </section>
      <section>
        <h3>Split</h3>
        <ObjectFields prefix="split" value={asObject(d.split)} />
      </section>
      <section>
        <h3>Quality gates</h3>
        {quality.gates.length || quality.measures.length ? (
          <div data-field="qualityGates">
            {quality.gates.length > 0 && (
              <table>
                <thead>
                  <tr>
                    <th>Gate</th>
                    <th>Result</th>
                    <th>Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {quality.gates.map((g, i) => (
                    <tr key={`${g.name}:${i}`} data-gate={g.name}>
                      <td>{g.name}</td>
                      <td>
                        <Verdict passed={g.passed} field={`qualityGates.${g.name}`} />
                      </td>
                      <td>{g.detail || "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {quality.measures.length > 0 && (
              <>
                <h4>Measured</h4>
                <Fields>
                  {quality.measures.map((m) => (
                    <Field key={m.name} name={`qualityGates.${m.name}`} label={m.name}>
                      {m.value}
                    </Field>
                  ))}
                </Fields>
              </>
            )}
          </div>
        ) : (
          <p className="muted">No quality gates recorded.</p>
        )}
      </section>
      <section>
        <h3>Used by</h3>
        {d.usedBy.length ? (
          <ul data-field="usedBy">
            {d.usedBy.map((u) => (
              <li key={`${u.consumer.id}:${u.role ?? ""}`}>
                <NodeLink id={u.consumer.id} type={u.consumer.type} label={"name" in u.consumer ? u.consumer.name : null} />
                {u.role ? ` as ${u.role}` : ""}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">Not used by any run or evaluation.</p>
        )}
        {d.derivatives.length > 0 && (
          <>
            <h4>Derived versions</h4>
            <ul>
              {d.derivatives.map((x) => (
                <li key={x.id}>
                  <NodeLink id={x.id} type="DatasetVersion" label={label(x)} />
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </>
  );
}
