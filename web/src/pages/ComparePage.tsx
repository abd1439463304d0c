import { useState } from "react";
import { COMPARE_QUERY } from "../api/queries";
import type { ComparedRun } from "../api/types";
import { useQuery } from "../api/useQuery";
import { MetricChart } from "../components/MetricChart";
import { LongValue } from "../components/cards/LongValue";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { text } from "../lib/json";
import { link, type Route } from "../routes/route";
import { replaceRoute } from "../routes/useRoute";

type CompareRoute = Extract<Route, { page: "compare" }>;

function paramValue(run: ComparedRun, name: string): string {
  return text(run.params.find((p) => p.name === name)?.value);
}

function metricValue(run: ComparedRun, key: string): number | null {
  return run.metrics.find((m) => m.key === key)?.value ?? null;
}

/** An experiment's runs side by side, the one-change check, and a chart of one metric. */
export function ComparePage({ route }: { route: CompareRoute }) {
  const [all, setAll] = useState(false);
  const { data, error, loading } = useQuery(COMPARE_QUERY, { experiment: route.experiment, all, sortBy: null });
  if (loading && !data) return <Loading what="Comparing runs" />;
  if (error) return <ErrorView error={error} id={route.experiment} />;
  const c = data?.compare;
  if (!c) return <NotFound id={route.experiment} />;
  const metric = route.metric || c.metrics[0]?.key || "";
  const points = c.runs
    .filter((r) => r.number != null)
    .map((r) => ({ run: r.number as number, [metric]: metricValue(r, metric) }));
  return (
    <section>
      <h2>
        Runs of <NodeLink id={route.experiment} type="Experiment" />
      </h2>
      <p>
        Each run is checked against {c.basis === "baseline" ? `the baseline ${c.baseline ?? ""}` : "the previous run by number"}; a run is
        flagged when more than one setting changed. <span data-field="flaggedCount">{c.flagged.length}</span> flagged.
      </p>
      {c.truncated && <p className="notice">⚠ Truncated: the experiment has more runs than shown.</p>}
      <label>
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Show every param (not only those that differ)
      </label>
      <div className="table-scroll">
        <table className="compare" data-testid="compare-table">
          <thead>
            <tr>
              <th>Run</th>
              <th>Status</th>
              <th>Check</th>
              {c.params.map((p) => (
                <th key={p}>param {p}</th>
              ))}
              <th>Inputs</th>
              <th>Environment</th>
              <th>Code</th>
              {c.metrics.map((m) => (
                <th key={m.key}>{m.key}</th>
              ))}
              <th>Duration (s)</th>
              <th>Conclusion</th>
            </tr>
          </thead>
          <tbody>
            {c.runs.map((r) => (
              <tr key={r.id} className={r.check.flagged ? "flagged" : ""} data-run-id={r.id} data-flagged={r.check.flagged}>
                <td>
                  <NodeLink id={r.id} label={`#${text(r.number)} ${r.name ?? ""}`} />
                </td>
                <td data-field="status">
                  {r.status ?? "—"}
                  {r.error ? ` — ${text(r.error.type)}: ${text(r.error.message)}` : ""}
                  {r.abortReason ? ` — ${r.abortReason}` : ""}
                </td>
                <td data-field="check">
                  {r.check.flagged ? "⚑ FLAGGED: " : r.check.changes.length ? "✔ one change: " : r.check.against ? "✔ no change" : "—"}
                  {r.check.changes.map((ch) => `${ch.kind.toLowerCase()} ${ch.name} (${text(ch.before)} → ${text(ch.after)})`).join("; ")}
                  {r.check.against && (
                    <>
                      {" "}
                      vs <a href={link.diff(r.check.against, r.id)}>{r.check.against}</a>
                    </>
                  )}
                  {r.check.unverifiable.length > 0 && <div className="muted">cannot compare: {r.check.unverifiable.join(", ")}</div>}
                </td>
                {c.params.map((p) => (
                  <td key={p} data-field={`params.${p}`}>
                    {paramValue(r, p)}
                  </td>
                ))}
                <td data-field="inputs">
                  {r.inputs.length
                    ? r.inputs.map((i, n) => (
                        <span key={`${i.role}:${i.datasetVersion}`}>
                          {n ? ", " : ""}
                          {i.role}: <LongValue value={i.datasetVersion} />
                        </span>
                      ))
                    : "—"}
                </td>
                <td data-field="environment">{r.environment ? <LongValue value={r.environment.image ?? r.environment.id} /> : "—"}</td>
                <td>
                  <code>
                    <LongValue value={text(r.code?.commit)} />
                  </code>
                  {r.code?.dirty ? " (dirty)" : ""}
                </td>
                {c.metrics.map((m) => (
                  <td key={m.key}>{text(metricValue(r, m.key))}</td>
                ))}
                <td>{text(r.durationS)}</td>
                <td>{r.conclusion ?? (r.conclusionMissing ? "⚠ conclusion missing" : "—")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {c.metrics.length > 0 && (
        <>
          <label htmlFor="chart-metric">Metric to chart</label>{" "}
          <select id="chart-metric" value={metric} onChange={(e) => replaceRoute({ ...route, metric: e.target.value })}>
            {c.metrics.map((m) => (
              <option key={m.key} value={m.key}>
                {m.key}
              </option>
            ))}
          </select>
          <MetricChart points={points} metrics={[metric]} xKey="run" xLabel="run number" title={`${metric} by run`} />
        </>
      )}
    </section>
  );
}
