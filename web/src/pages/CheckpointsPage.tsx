import { useState, type FormEvent } from "react";
import { CHECKPOINT_STAGES_QUERY } from "../api/queries";
import type { CheckpointStage, CheckpointStagesAnswer, StageResult } from "../api/types";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading } from "../components/Status";
import { countText, savedText, suiteText, valueText } from "../lib/checkpointStages";
import { text } from "../lib/json";
import { link } from "../routes/route";
import { navigate } from "../routes/useRoute";

/** The metric to keep (empty: every metric), asked by the route. */
function MetricForm({ run, metric }: { run: string; metric: string }) {
  const [name, setName] = useState(metric);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({ page: "checkpoints", run, metric: name.trim() });
  };
  return (
    <form className="inline" aria-label="Checkpoints question" onSubmit={submit}>
      <label htmlFor="checkpoints-metric">Keep one metric</label>
      <input id="checkpoints-metric" value={name} onChange={(e) => setName(e.target.value)} placeholder="acc" />
      <button type="submit">Compare</button>
    </form>
  );
}

/** One checkpoint: its step (a link to its card), when it was saved, its saved metrics. */
function Stage({ stage }: { stage: CheckpointStage }) {
  return (
    <tr data-checkpoint={stage.id}>
      <td data-col="step">
        <NodeLink id={stage.id} label={`step ${text(stage.step)}`} />
      </td>
      <td data-col="saved">{text(stage.savedAt)}</td>
      <td data-col="status">{text(stage.status)}</td>
      <td data-col="metrics">{savedText(stage)}</td>
      <td data-col="evaluations">{stage.evaluations}</td>
    </tr>
  );
}

/** One metric of one evaluation: the set it was measured on, its value and change. */
function Result({ result }: { result: StageResult }) {
  return (
    <tr data-evaluation={result.evaluation} data-metric={result.metric ?? ""}>
      <td data-col="step">{text(result.step)}</td>
      <td data-col="suite">{suiteText(result)}</td>
      <td data-col="set">
        {result.evaluationSet.length
          ? result.evaluationSet.map((d, i) => (
              <span key={d}>
                {i > 0 && ", "}
                <NodeLink id={d} type="DatasetVersion" />
              </span>
            ))
          : "(no dataset recorded)"}
      </td>
      <td data-col="metric">{result.metric ? <code>{result.metric}</code> : "—"}</td>
      <td data-col="value">{valueText(result)}</td>
      <td data-col="passed">{result.passed == null ? "—" : result.passed ? "yes" : "no"}</td>
    </tr>
  );
}

/** The whole answer: the checkpoints in step order, then each evaluation metric with its change. */
export function CheckpointStagesView({ answer }: { answer: CheckpointStagesAnswer }) {
  return (
    <>
      <p data-testid="count">
        {countText(answer)}, in step order
        {answer.truncated && ` (the latest ${answer.limit} steps; earlier checkpoints left out)`}
      </p>
      {answer.checkpoints.length > 0 && (
        <table className="compare" data-testid="stages">
          <thead>
            <tr>
              <th>Checkpoint</th>
              <th>Saved</th>
              <th>Status</th>
              <th>Saved metrics</th>
              <th>Evaluations</th>
            </tr>
          </thead>
          <tbody>
            {answer.checkpoints.map((c) => (
              <Stage key={c.id} stage={c} />
            ))}
          </tbody>
        </table>
      )}
      <h3>Evaluations</h3>
      {answer.results.length ? (
        <table className="compare" data-testid="results">
          <thead>
            <tr>
              <th>Step</th>
              <th>Suite</th>
              <th>Evaluation set</th>
              <th>Metric</th>
              <th>Value (change)</th>
              <th>Passed</th>
            </tr>
          </thead>
          <tbody>
            {answer.results.map((r) => (
              <Result key={`${r.evaluation} ${r.metric ?? ""}`} result={r} />
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted" data-testid="no-results">
          No checkpoint evaluation recorded.
        </p>
      )}
    </>
  );
}

/** A run's checkpoints compared stage by stage, as `provgraph checkpoints` prints them. */
export function CheckpointsPage({ run, metric }: { run: string; metric: string }) {
  const { data, error, loading } = useQuery(CHECKPOINT_STAGES_QUERY, { run, metric: metric || null });
  return (
    <section>
      <h2>
        Checkpoints of <NodeLink id={run} type="Run" /> stage by stage
      </h2>
      <p className="muted">
        Each change is from the previous checkpoint with a value of the metric on the same evaluation set (dataset versions, suite and
        its version); two sets are never compared. <a href={link.node(run)}>The run&apos;s card</a>.
      </p>
      <MetricForm run={run} metric={metric} />
      {loading && <Loading what="Comparing the checkpoints" />}
      {error && <ErrorView error={error} />}
      {data && !loading && <CheckpointStagesView answer={data.checkpointStages} />}
    </section>
  );
}
