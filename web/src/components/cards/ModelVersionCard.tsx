import type { ModelFeedback, NodeCardOf, Ref } from "../../api/types";
import { asObject, text } from "../../lib/json";
import { link } from "../../routes/route";
import { Field, Fields, ObjectFields, Value } from "../Field";
import { NodeLink } from "../NodeLink";
import { Verdict } from "../Verdict";

const refLabel = (r: Ref) => [r.name, r.version].filter(Boolean).join(" ") || r.id;

/** The production feedback events that named the version (`ModelVersion.feedback`), newest first. */
function FeedbackTable({ feedback }: { feedback: readonly ModelFeedback[] }) {
  if (!feedback.length) {
    return (
      <p className="muted" data-field="feedback">
        No feedback recorded.
      </p>
    );
  }
  return (
    <>
      <table data-field="feedback">
        <thead>
          <tr>
            <th>When</th>
            <th>Deployment</th>
            <th>Recorded by</th>
            <th>Metrics</th>
            <th>Incidents</th>
          </tr>
        </thead>
        <tbody>
          {feedback.map((f) => (
            <tr key={f.eventId} data-feedback-event={f.eventId}>
              <td>{f.at}</td>
              <td>{f.deployment ? <NodeLink id={f.deployment.id} type="Deployment" label={f.deployment.name} /> : "—"}</td>
              <td>{f.principal ?? f.actor ?? "—"}</td>
              <td>
                {Object.entries(asObject(f.metrics))
                  .map(([k, v]) => `${k} ${text(v)}`)
                  .join(", ") || "—"}
              </td>
              <td>
                {f.incidents?.length
                  ? f.incidents.map((i, n) => (
                      <div key={n}>
                        {i.severity ? <strong>{i.severity}</strong> : null} {text(i.summary)}
                        {i.reference ? (
                          <>
                            {" "}
                            <code>{i.reference}</code>
                          </>
                        ) : null}
                      </div>
                    ))
                  : "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        A deployment keeps the metrics and incidents of its latest feedback only: earlier ones show "—" here and stay
        in the event history.
      </p>
    </>
  );
}

/** A model version: origin, evaluations, scope, approval, deployments, feedback. */
export function ModelVersionCard({ node: m }: { node: NodeCardOf<"ModelVersion"> }) {
  return (
    <>
      <section>
        <h3>Approval</h3>
        <Fields>
          <Field name="status" label="Status">
            <span className={`status status-${m.status ?? "unknown"}`}>{m.status ?? "unknown"}</span>
          </Field>
          <Field name="statusReason" label="Reason">
            <Value value={m.statusReason} />
          </Field>
          <Field name="registeredAt" label="Registered">
            <Value value={m.registeredAt} />
          </Field>
          <Field name="validationPassed" label="Validation at registration">
            <Verdict passed={m.validationPassed} />
          </Field>
        </Fields>
        {m.validation != null && (
          <details>
            <summary>Validation checks</summary>
            <ObjectFields prefix="validation" value={asObject(m.validation)} />
          </details>
        )}
        <p>
          <a href={link.reproduce(m.id)}>Reproduce this version</a> · <a href={link.lineage(m.id)}>upstream lineage</a> ·{" "}
          <a href={link.dossier(m.id)}>Dossier</a>
        </p>
      </section>
      <section>
        <h3>Scope</h3>
        <Fields>
          <Field name="fitFor" label="Fit for">
            {m.fitFor.length ? m.fitFor.join(", ") : "—"}
          </Field>
          <Field name="description" label="Description">
            <Value value={m.description} />
          </Field>
          <Field name="model" label="Model">
            {m.model ? <NodeLink id={m.model.id} type="Model" label={m.model.name} /> : "—"}
          </Field>
        </Fields>
      </section>
      <section>
        <h3>Origin</h3>
        <Fields>
          <Field name="producedBy" label="Trained by run">
            {m.producedBy ? <NodeLink id={m.producedBy.id} type="Run" label={m.producedBy.name} /> : "— (no producing run recorded)"}
          </Field>
          <Field name="exportedFrom" label="Exported from checkpoint">
            {m.exportedFrom ? <NodeLink id={m.exportedFrom.id} type="Checkpoint" label={`step ${text(m.exportedFrom.step)}`} /> : "—"}
          </Field>
          <Field name="origin.data" label="Training data">
            {m.producedBy?.inputs.length ? (
              <ul>
                {m.producedBy.inputs.map((i) => (
                  <li key={`${i.role}:${i.datasetVersion.id}`}>
                    {i.role ? `${i.role}: ` : ""}
                    <NodeLink id={i.datasetVersion.id} type="DatasetVersion" label={refLabel(i.datasetVersion)} />
                  </li>
                ))}
              </ul>
            ) : (
              "—"
            )}
          </Field>
          <Field name="uri" label="Stored at">
            <code>{text(m.uri)}</code>
          </Field>
          <Field name="checksum" label="Checksum">
            <code>{text(m.checksum)}</code>
          </Field>
        </Fields>
      </section>
      <section>
        <h3>Evaluations</h3>
        {m.evaluations.length ? (
          <table data-field="evaluations">
            <thead>
              <tr>
                <th>Suite</th>
                <th>Data</th>
                <th>Result</th>
                <th>Metrics</th>
                <th>When</th>
              </tr>
            </thead>
            <tbody>
              {m.evaluations.map((e) => (
                <tr key={e.id} data-evaluation-id={e.id}>
                  <td data-col="suite">
                    <NodeLink id={e.id} label={[e.suite, e.suiteVersion].filter(Boolean).join(" ") || e.id} />
                  </td>
                  <td data-col="datasets">
                    {e.datasets.length
                      ? e.datasets.map((d, n) => (
                          <span key={d.id}>
                            {n ? ", " : ""}
                            <NodeLink id={d.id} type="DatasetVersion" label={refLabel(d)} />
                          </span>
                        ))
                      : "—"}
                  </td>
                  <td data-col="passed">
                    <Verdict passed={e.passed} />
                  </td>
                  <td data-col="metrics">
                    {Object.entries(asObject(e.metrics))
                      .map(([k, v]) => `${k} ${text(v)}`)
                      .join(", ") || "—"}
                  </td>
                  <td data-col="evaluatedAt">{text(e.evaluatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">No evaluations recorded.</p>
        )}
      </section>
      <section>
        <h3>Deployments</h3>
        {m.deployments.length ? (
          <ul data-field="deployments">
            {m.deployments.map((d) => (
              <li key={d.id} data-deployment-id={d.id}>
                <NodeLink id={d.id} type="Deployment" label={d.name} /> — {text(d.deploymentEnvironment)}, {text(d.status)}
                {d.endpoint ? ` at ${d.endpoint}` : ""}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">Not deployed.</p>
        )}
        {m.fineTunes.length > 0 && (
          <>
            <h4>Fine-tuned by</h4>
            <ul>
              {m.fineTunes.map((f) => (
                <li key={f.id}>
                  <NodeLink id={f.id} type="Run" label={f.name} />
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <section>
        <h3>Feedback</h3>
        <FeedbackTable feedback={m.feedback} />
      </section>
    </>
  );
}
