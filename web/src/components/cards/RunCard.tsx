import { RESUME_QUERY } from "../../api/queries";
import type { NodeCardOf, Ref, ResumeLink, RunResources } from "../../api/types";
import { useQuery } from "../../api/useQuery";
import { metricCurves, pointCounts, seriesCurves, withoutMetrics } from "../../lib/curves";
import { asObject, flatten, text } from "../../lib/json";
import { link } from "../../routes/route";
import { Field, Fields, ObjectFields, Value } from "../Field";
import { MetricChart } from "../MetricChart";
import { NodeLink } from "../NodeLink";

/** How many links the card follows at most (a guard against an endless chain). */
const MAX_RESUME_LINKS = 50;

/**
 * The resumed-from chain, oldest last: each checkpoint and the run that saved it. The card's
 * answer holds the first level; each run that saved a checkpoint is then asked for its own
 * `resumedFrom` (RESUME_QUERY), one level at a time, until a run resumed from nothing.
 */
function ResumeChain({ links }: { links: readonly ResumeLink[] }) {
  if (!links.length) return <p className="muted">Not resumed.</p>;
  return (
    <ol data-field="resumedFrom">
      <ResumeLinks links={links} seen={new Set()} />
    </ol>
  );
}

function ResumeLinks({ links, seen }: { links: readonly ResumeLink[]; seen: ReadonlySet<string> }) {
  const fresh = links.filter((l) => !seen.has(l.id));
  const inner = new Set([...seen, ...fresh.map((l) => l.id)]);
  return (
    <>
      {fresh.map((c) => (
        <ResumeItem key={c.id} link={c} seen={inner} />
      ))}
    </>
  );
}

function ResumeItem({ link, seen }: { link: ResumeLink; seen: ReadonlySet<string> }) {
  const runId = link.run?.id ?? null;
  const further = runId !== null && seen.size < MAX_RESUME_LINKS;
  const { data, error } = useQuery(RESUME_QUERY, { id: runId ?? "" }, !further);
  const earlier = data?.node && "resumedFrom" in data.node ? data.node.resumedFrom : null;
  return (
    <>
      <li>
        <NodeLink id={link.id} type="Checkpoint" label={`step ${text(link.step)}`} />
        {link.run ? (
          <>
            {" "}
            saved by <NodeLink id={link.run.id} type="Run" label={link.run.name} />
          </>
        ) : (
          " (saving run not recorded)"
        )}
        {error && <span className="muted"> (earlier links not loaded: {error.message})</span>}
      </li>
      {earlier && <ResumeLinks links={earlier} seen={seen} />}
    </>
  );
}

const refLabel = (r: Ref) => [r.name, r.version].filter(Boolean).join(" ") || r.id;

/** The compute the run's start recorded (`Run.resources`), each value a `resources.<field>`. */
function ResourcesFields({ resources }: { resources: RunResources | null }) {
  if (!resources) {
    return (
      <p className="muted" data-field="resources">
        No resources recorded.
      </p>
    );
  }
  const extra = asObject(resources.extra);
  return (
    <>
      <Fields>
        <Field name="resources.numNodes" label="Machines">
          <Value value={resources.numNodes} />
        </Field>
        <Field name="resources.devicesPerNode" label="Accelerators per machine">
          <Value value={resources.devicesPerNode} />
        </Field>
        <Field name="resources.accelerator" label="Accelerator">
          <Value value={resources.accelerator} />
        </Field>
        <Field name="resources.parallelism" label="Parallelism">
          {resources.parallelism.length ? resources.parallelism.map((d) => `${d.name} ${d.degree}`).join(", ") : "—"}
        </Field>
      </Fields>
      {Object.keys(extra).length > 0 && <ObjectFields prefix="resources.extra" value={extra} />}
    </>
  );
}

/** A run: experiment, params, environment, code, inputs, resources, checkpoints, curves, outcome. */
export function RunCard({ node: r }: { node: NodeCardOf<"Run"> }) {
  const ended = r.status === "completed" || r.status === "failed";
  // The logged series first; a checkpoint's metrics only for a metric no series logged.
  const logged = seriesCurves(r.metricSeries);
  const saved = withoutMetrics(metricCurves(r.checkpoints), logged.metrics);
  const inputsByRole = new Map<string, Ref[]>();
  for (const input of r.inputs) {
    const role = input.role ?? "(no role)";
    inputsByRole.set(role, [...(inputsByRole.get(role) ?? []), input.datasetVersion]);
  }
  const env = r.environment;
  return (
    <>
      <section>
        <h3>Outcome</h3>
        <Fields>
          <Field name="status" label="Status">
            <span className={`status status-${r.status ?? "unknown"}`}>{r.status ?? "unknown"}</span>
          </Field>
          <Field name="startedAt" label="Started">
            <Value value={r.startedAt} />
          </Field>
          <Field name="endedAt" label="Ended">
            <Value value={r.endedAt} />
          </Field>
          <Field name="finalStep" label="Final step">
            <Value value={r.finalStep} />
          </Field>
          {r.error && (
            <Field name="error" label="Error">
              <strong>{text(r.error.type)}</strong>: {text(r.error.message)}
              {r.error.traceback && (
                <details>
                  <summary>Traceback</summary>
                  <pre>{r.error.traceback}</pre>
                </details>
              )}
            </Field>
          )}
          {r.abortReason && (
            <Field name="abortReason" label="Abort reason">
              {r.abortReason}
            </Field>
          )}
          {r.interruptionCause && (
            <Field name="interruptionCause" label="Interruption cause">
              {r.interruptionCause}
            </Field>
          )}
          <Field name="conclusion" label="Conclusion">
            {r.conclusion ? r.conclusion : ended ? <strong className="warning">⚠ conclusion missing</strong> : "—"}
          </Field>
        </Fields>
      </section>
      <section>
        <h3>Experiment</h3>
        <Fields>
          <Field name="experiment" label="Experiment">
            {r.experiment ? (
              <>
                <NodeLink id={r.experiment.id} type="Experiment" label={`experiment ${text(r.experiment.number)}${r.experiment.key ? ` (${r.experiment.key})` : ""}`} />{" "}
                <a href={link.compare(r.experiment.id)}>compare its runs</a>
              </>
            ) : (
              "—"
            )}
          </Field>
          <Field name="runNumber" label="Run number">
            <Value value={r.runNumber} />
          </Field>
          {r.runNumberClaimed != null && (
            <Field name="runNumberClaimed" label="Number claimed">
              <Value value={r.runNumberClaimed} /> (held by another run of the experiment: renumbered)
            </Field>
          )}
          {r.experiment?.goal && (
            <Field name="experiment.goal" label="Goal">
              {r.experiment.goal}
            </Field>
          )}
          <Field name="startedFrom" label="Started from">
            {r.startedFrom ? <NodeLink id={r.startedFrom.id} type={r.startedFrom.type} /> : "— (from scratch)"}
          </Field>
          {r.scaledFrom && (
            <Field name="scaledFrom" label="Scales up the pilot">
              <NodeLink id={r.scaledFrom.id} type="Run" /> <a href={link.scaleUp(r.id)}>side by side</a>
            </Field>
          )}
          {r.scaleUps.length > 0 && (
            <Field name="scaleUps" label="Scaled up by">
              {r.scaleUps.map((s, i) => (
                <span key={s.id}>
                  {i > 0 && ", "}
                  <NodeLink id={s.id} type="Run" /> (<a href={link.scaleUp(s.id)}>side by side</a>)
                </span>
              ))}
            </Field>
          )}
        </Fields>
      </section>
      <section>
        <h3>Parameters</h3>
        <ObjectFields prefix="params" value={flatten(r.params)} />
      </section>
      <section>
        <h3>Code</h3>
        <Fields>
          <Field name="code.repo" label="Repository">
            <Value value={r.code.repo} />
          </Field>
          <Field name="code.commit" label="Commit">
            <code>{text(r.code.commit)}</code>
          </Field>
          <Field name="code.dirty" label="Uncommitted changes">
            {r.code.dirty == null ? "—" : r.code.dirty ? "yes (dirty working tree)" : "no"}
          </Field>
        </Fields>
      </section>
      <section>
        <h3>Environment</h3>
        {env ? (
          <>
            <Fields>
              <Field name="environment.id" label="Snapshot">
                <NodeLink id={env.id} type="Environment" label={env.key} />
              </Field>
              <Field name="environment.image" label="Image">
                <code>{[env.image?.name, env.image?.tag && `:${env.image.tag}`, env.image?.digest && `@${env.image.digest}`].filter(Boolean).join("") || "—"}</code>
              </Field>
              <Field name="environment.pythonVersion" label="Python">
                <Value value={env.pythonVersion} />
              </Field>
            </Fields>
            <details>
              <summary>Packages ({Object.keys(asObject(env.packages)).length}) and frameworks</summary>
              <ObjectFields prefix="environment.frameworks" value={asObject(env.frameworks)} />
              <ObjectFields prefix="environment.packages" value={asObject(env.packages)} />
            </details>
          </>
        ) : (
          <p className="muted">No environment recorded.</p>
        )}
      </section>
      <section>
        <h3>Inputs by role</h3>
        {inputsByRole.size ? (
          <Fields>
            {[...inputsByRole].map(([role, refs]) => (
              <Field key={role} name={`inputs.${role}`} label={role}>
                {refs.map((ref) => (
                  <div key={ref.id}>
                    <NodeLink id={ref.id} type="DatasetVersion" label={refLabel(ref)} />
                  </div>
                ))}
              </Field>
            ))}
          </Fields>
        ) : (
          <p className="muted">No inputs recorded.</p>
        )}
      </section>
      <section>
        <h3>Resources</h3>
        <ResourcesFields resources={r.resources} />
      </section>
      <section>
        <h3>Metrics</h3>
        <ObjectFields prefix="finalMetrics" value={asObject(r.finalMetrics)} />
        <MetricChart
          points={logged.points}
          metrics={logged.metrics}
          xKey="step"
          xLabel="step"
          title="Logged metrics by step (run.metrics.logged; long series downsampled)"
          field="metric-series"
          counts={pointCounts(logged)}
          empty="No metric series logged."
        />
        {saved.metrics.length > 0 && (
          <MetricChart
            points={saved.points}
            metrics={saved.metrics}
            xKey="step"
            xLabel="step"
            title="Metrics saved with checkpoints, by step (no logged series of them)"
            field="checkpoint-metrics"
            counts={pointCounts(saved)}
          />
        )}
      </section>
      <section>
        <h3>Checkpoints</h3>
        {r.checkpoints.length > 0 && (
          <p data-field="checkpointStages">
            <a href={link.checkpoints(r.id)}>Compare the checkpoints stage by stage</a> (their saved metrics and evaluations, each
            metric&apos;s change from the checkpoint before).
          </p>
        )}
        {r.checkpoints.length ? (
          <table data-field="checkpoints">
            <thead>
              <tr>
                <th>Step</th>
                <th>Epoch</th>
                <th>Status</th>
                <th>Save time (s)</th>
                <th>URI</th>
              </tr>
            </thead>
            <tbody>
              {[...r.checkpoints]
                .sort((a, b) => (a.step ?? 0) - (b.step ?? 0))
                .map((c) => (
                  <tr key={c.id}>
                    <td>
                      <NodeLink id={c.id} label={`step ${text(c.step)}`} />
                    </td>
                    <td>{text(c.epoch)}</td>
                    <td>{c.status === "files_deleted" ? "files deleted" : text(c.status)}</td>
                    <td>{text(c.saveSeconds)}</td>
                    <td>
                      <code>{text(c.uri)}</code>
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">No checkpoints recorded.</p>
        )}
        <h4>Resumed from</h4>
        <ResumeChain links={r.resumedFrom} />
        {r.resumedAtStep != null && <p data-field="resumedAtStep">Resumed at step {r.resumedAtStep}.</p>}
      </section>
      <section>
        <h3>Outputs</h3>
        <ul>
          {r.outputs.map((o) => (
            <li key={o.id}>
              <NodeLink id={o.id} type="DatasetVersion" label={refLabel(o)} />
            </li>
          ))}
          {r.modelVersions.map((m) => (
            <li key={m.id}>
              <NodeLink id={m.id} type="ModelVersion" label={refLabel(m)} /> {m.status ? `(${m.status})` : ""}
            </li>
          ))}
          {!r.outputs.length && !r.modelVersions.length && <li className="muted">none recorded</li>}
        </ul>
      </section>
    </>
  );
}
