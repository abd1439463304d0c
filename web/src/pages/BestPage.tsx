import { useState, type FormEvent } from "react";
import { BEST_QUERY } from "../api/queries";
import type { EvaluationSet, ScoredVersion } from "../api/types";
import { useQuery } from "../api/useQuery";
import { DiffTableRow, diffRowKey } from "../components/DiffTableRow";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { diffRows } from "../lib/diff";
import { text } from "../lib/json";
import { formatRoute, link, type Route } from "../routes/route";
import { navigate } from "../routes/useRoute";

type BestRoute = Extract<Route, { page: "best" }>;

function Scored({ v, field }: { v: ScoredVersion | null; field: string }) {
  if (!v) return <span data-field={field}>—</span>;
  return (
    <span data-field={field}>
      <NodeLink id={v.modelVersion} type="ModelVersion" label={v.label} /> = <strong>{text(v.value)}</strong> ({v.status ?? "no status"},
      evaluated {v.evaluatedAt})
    </span>
  );
}

function setLabel(s: EvaluationSet): string {
  return `${s.datasets.join(" + ") || "no datasets"}${s.suite ? ` · ${s.suite}${s.suiteVersion ? ` ${s.suiteVersion}` : ""}` : ""}`;
}

function BestForm({ route }: { route: BestRoute }) {
  const [metric, setMetric] = useState(route.metric);
  const [dataset, setDataset] = useState(route.dataset);
  const [higher, setHigher] = useState(route.higher);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({ ...route, metric, dataset, higher });
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="Best version query">
      <label htmlFor="best-metric">Metric</label>
      <input id="best-metric" value={metric} onChange={(e) => setMetric(e.target.value)} required />
      <label htmlFor="best-dataset">Evaluation dataset version</label>
      <input id="best-dataset" value={dataset} onChange={(e) => setDataset(e.target.value)} />
      <label>
        <input type="checkbox" checked={higher} onChange={(e) => setHigher(e.target.checked)} /> Higher is better
      </label>
      <button type="submit">Find the best</button>
    </form>
  );
}

/** The best version of a model by one metric, the previous best, the delta and the diff. */
export function BestPage({ route }: { route: BestRoute }) {
  const skip = !route.metric;
  const { data, error, loading } = useQuery(
    BEST_QUERY,
    {
      model: route.model,
      metric: route.metric,
      project: route.project || null,
      datasets: route.dataset ? [route.dataset] : null,
      higherIsBetter: route.higher,
    },
    skip,
  );
  const best = data?.bestModelVersion;
  return (
    <section>
      <h2>
        Best version of <NodeLink id={route.model} />
      </h2>
      {/* Keyed by the route: a link to another question shows its own values in the form. */}
      <BestForm key={formatRoute(route)} route={route} />
      {skip && <p className="muted">Name a metric to rank the versions.</p>}
      {loading && <Loading what="Ranking" />}
      {error && <ErrorView error={error} id={route.model} />}
      {data && !best && <NotFound id={route.model} />}
      {best && (
        <>
          {best.message && <p className="notice">{best.message}</p>}
          {best.truncated && <p className="notice">⚠ Truncated: the evaluation cap was hit.</p>}
          {best.ambiguous && (
            <div className="notice" data-testid="evaluation-sets">
              The metric was recorded on several evaluation sets; pick one:
              <ul>
                {best.evaluationSets.map((s) => (
                  <li key={setLabel(s)} data-datasets={s.datasets.join(" ")}>
                    {s.datasets.length === 1 ? (
                      <a href={formatRoute({ ...route, dataset: s.datasets[0] })}>{setLabel(s)}</a>
                    ) : (
                      setLabel(s)
                    )}{" "}
                    ({text(s.versions)} versions)
                  </li>
                ))}
              </ul>
            </div>
          )}
          <dl className="fields">
            <div className="field">
              <dt>Evaluation set</dt>
              <dd data-field="evaluationSet">{best.evaluationSet ? setLabel(best.evaluationSet) : "—"}</dd>
            </div>
            <div className="field">
              <dt>Best</dt>
              <dd>
                <Scored v={best.best} field="best" />
              </dd>
            </div>
            <div className="field">
              <dt>Previous best</dt>
              <dd>
                <Scored v={best.previousBest} field="previousBest" />
              </dd>
            </div>
            <div className="field">
              <dt>Delta</dt>
              <dd data-field="delta">
                {best.delta == null ? "—" : `${best.delta > 0 ? "+" : ""}${text(best.delta)}`} ({best.higherIsBetter ? "higher" : "lower"} is better)
              </dd>
            </div>
          </dl>
          {best.best && best.previousBest && (
            <p data-testid="best-diff-link">
              <a href={link.diff(best.previousBest.modelVersion, best.best.modelVersion)}>Full diff of the two versions</a>
            </p>
          )}
          <h3>Ranking</h3>
          <ol data-testid="ranking">
            {best.ranking.map((v) => (
              <li key={v.modelVersion}>
                <Scored v={v} field="ranking" />
              </li>
            ))}
          </ol>
          {best.diff != null && (
            <>
              <h3>What changed from the previous best</h3>
              <table className="diff" data-testid="best-diff">
                <tbody>
                  {diffRows(best.diff)
                    .filter((r) => r.change !== "same")
                    .map((r) => (
                      <DiffTableRow key={diffRowKey(r)} row={r} />
                    ))}
                </tbody>
              </table>
            </>
          )}
        </>
      )}
    </section>
  );
}
