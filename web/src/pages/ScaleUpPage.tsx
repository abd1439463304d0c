import { SCALE_UP_QUERY } from "../api/queries";
import type { MetricTrend, ScaleUpAnswer, ScaleUpRun } from "../api/types";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading } from "../components/Status";
import { text } from "../lib/json";
import { changeText, factorText, finalText, resourcesText, trendText } from "../lib/scaleUp";
import { link } from "../routes/route";

/** One side: the run (a node link), its name, status, experiment and resources. */
function Side({ label, run, testid }: { label: string; run: ScaleUpRun; testid: string }) {
  return (
    <tr data-testid={testid} data-run={run.id}>
      <th scope="row">{label}</th>
      <td data-col="run">
        <NodeLink id={run.id} type="Run" />
      </td>
      <td data-col="name">{text(run.name)}</td>
      <td data-col="status">{text(run.status)}</td>
      <td data-col="experiment">{run.experiment ? <NodeLink id={run.experiment} type="Experiment" /> : "—"}</td>
      <td data-col="resources">{resourcesText(run)}</td>
      <td data-col="accelerators">{text(run.accelerators)}</td>
    </tr>
  );
}

/** One metric both runs logged: final values, the trends over the shared steps, the verdict. */
function Metric({ metric }: { metric: MetricTrend }) {
  const trend = trendText(metric);
  return (
    <tr data-metric={metric.name} className={metric.verdict === "held" || metric.verdict === "unknown" ? undefined : "flagged"}>
      <td data-col="name">
        <code>{metric.name}</code>
      </td>
      <td data-col="final">{finalText(metric)}</td>
      <td data-col="trend">{trend ?? "—"}</td>
      <td data-col="verdict">
        <strong>{metric.verdict.toUpperCase()}</strong>: {metric.why}
      </td>
    </tr>
  );
}

/** The whole answer: the two sides, the scale, the other changes and the trend. */
export function ScaleUpView({ answer }: { answer: ScaleUpAnswer }) {
  return (
    <>
      <table className="compare" data-testid="sides">
        <thead>
          <tr>
            <th />
            <th>Run</th>
            <th>Name</th>
            <th>Status</th>
            <th>Experiment</th>
            <th>Resources</th>
            <th>Accelerators</th>
          </tr>
        </thead>
        <tbody>
          <Side label="Pilot" run={answer.pilot} testid="pilot" />
          <Side label="Scale-up" run={answer.scaleUp} testid="scale-up" />
        </tbody>
      </table>
      <section>
        <h3>Scale</h3>
        <p data-testid="factor">Scale: {factorText(answer.scale.factor)}</p>
        <ul data-testid="resource-changes">
          {answer.scale.changes.map((c) => (
            <li key={c.name}>{changeText(c)}</li>
          ))}
        </ul>
      </section>
      <section>
        <h3>Other changes</h3>
        {answer.flagged ? (
          <>
            <p className="flagged" data-testid="flag">
              FLAGGED, {answer.flag}:
            </p>
            <ul data-testid="other-changes">
              {answer.otherChanges.map((c) => (
                <li key={`${c.kind} ${c.name}`}>{changeText(c)}</li>
              ))}
            </ul>
          </>
        ) : (
          <p data-testid="flag">No other setting differs.</p>
        )}
        {answer.unverifiable.map((u) => (
          <p key={u} className="muted">
            Note: {u}
          </p>
        ))}
      </section>
      <section>
        <h3>Metric trend</h3>
        <p data-testid="trend-held">
          Metric trend: <strong>{answer.trendHeld.toUpperCase()}</strong>
        </p>
        {answer.metrics.length ? (
          <table className="compare" data-testid="metrics">
            <thead>
              <tr>
                <th>Metric</th>
                <th>Final values</th>
                <th>Over the shared steps</th>
                <th>Verdict</th>
              </tr>
            </thead>
            <tbody>
              {answer.metrics.map((m) => (
                <Metric key={m.name} metric={m} />
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">No metric logged by both runs.</p>
        )}
      </section>
    </>
  );
}

/** A scale-up beside its pilot, as `provgraph scale-up` prints it. */
export function ScaleUpPage({ run }: { run: string }) {
  const { data, error, loading } = useQuery(SCALE_UP_QUERY, { run });
  return (
    <section>
      <h2>
        Scale-up <NodeLink id={run} type="Run" /> beside its pilot
      </h2>
      <p className="muted">
        A scale-up should change only the scale; the trend held when the scale-up moved each metric the pilot&apos;s way over the steps both
        logged, and ended as good or better. <a href={link.node(run)}>The run&apos;s card</a>.
      </p>
      {loading && <Loading what="Putting the pilot beside the scale-up" />}
      {error && <ErrorView error={error} />}
      {data && !loading && <ScaleUpView answer={data.scaleUp} />}
    </section>
  );
}
