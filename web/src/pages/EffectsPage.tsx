import { useState, type FormEvent } from "react";
import { EFFECTS_QUERY } from "../api/queries";
import type { Effect, EffectsAnswer } from "../api/types";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ProjectPicker } from "../components/ProjectPicker";
import { ErrorView, Loading } from "../components/Status";
import { failedText, meanText, runningText, signed } from "../lib/effects";
import { text } from "../lib/json";
import { isoToLocalInput, localInputToIso } from "../lib/time";
import { apiGrouping, formatRoute, link, type EffectGrouping, type Route } from "../routes/route";
import { navigate } from "../routes/useRoute";

type EffectsRoute = Extract<Route, { page: "effects" }>;

/** The columns of the table, as `provgraph effects` prints them, and the pairs' toggle. */
const COLUMNS = ["Change", "Kind", "Pairs", "Measured", "Mean Δ ± sd", "Min Δ", "Max Δ", "Failed", "Running", "Pairs of runs"];

/** The project, the metric, how numeric changes are grouped, and since when pairs count. */
function EffectsForm({ route }: { route: EffectsRoute }) {
  const [project, setProject] = useState(route.project);
  const [metric, setMetric] = useState(route.metric);
  const [by, setBy] = useState<EffectGrouping>(route.by);
  const [since, setSince] = useState(isoToLocalInput(route.since));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({ page: "effects", project: project || route.project, metric: metric.trim(), by, since: localInputToIso(since) });
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="Effects question">
      <label htmlFor="effects-project">Project</label>
      <ProjectPicker id="effects-project" value={project} allLabel="(choose)" onChange={(p) => p && setProject(p)} />
      <label htmlFor="effects-metric">Metric</label>
      <input id="effects-metric" value={metric} onChange={(e) => setMetric(e.target.value)} placeholder="final:val/loss" required />
      <label htmlFor="effects-by">Group numeric changes</label>
      <select id="effects-by" value={by} onChange={(e) => setBy(e.target.value === "factor" ? "factor" : "value")}>
        <option value="value">by value (64 → 32)</option>
        <option value="factor">by factor (x0.5)</option>
      </select>
      <label htmlFor="effects-since">pairs since (empty: all)</label>
      <input id="effects-since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
      <button type="submit">Show</button>
    </form>
  );
}

/** One change's row, and under it, when shown, its pairs of runs. */
export function EffectRows({ effect, shown = false }: { effect: Effect; shown?: boolean }) {
  const [open, setOpen] = useState(shown);
  return (
    <>
      <tr data-effect={effect.label} data-kind={effect.kind}>
        <td data-col="label">{effect.label}</td>
        <td data-col="kind">{effect.kind.toLowerCase()}</td>
        <td data-col="pairs">{effect.pairs}</td>
        <td data-col="measured">{effect.measured}</td>
        <td data-col="mean">{meanText(effect)}</td>
        <td data-col="minDelta">{signed(effect.minDelta)}</td>
        <td data-col="maxDelta">{signed(effect.maxDelta)}</td>
        <td data-col="failed">{failedText(effect)}</td>
        <td data-col="running">{runningText(effect)}</td>
        <td>
          <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? "Hide" : "Show"} {effect.runs.length} pair{effect.runs.length === 1 ? "" : "s"}
          </button>
        </td>
      </tr>
      {open && (
        <tr data-pairs-of={effect.label}>
          <td colSpan={COLUMNS.length}>
            <table>
              <thead>
                <tr>
                  <th>Before → after</th>
                  <th>Experiment</th>
                  <th>Status (after)</th>
                  <th>Δ</th>
                  <th>Started (after)</th>
                  <th>Diff</th>
                </tr>
              </thead>
              <tbody>
                {effect.runs.map((p) => (
                  <tr key={p.after} data-before={p.before} data-after={p.after}>
                    <td data-col="runs">
                      <NodeLink id={p.before} /> → <NodeLink id={p.after} />
                    </td>
                    <td data-col="experiment">{p.experiment ? <NodeLink id={p.experiment} /> : "—"}</td>
                    <td data-col="status" className={p.status ? `status-${p.status}` : undefined}>
                      {text(p.status)}
                    </td>
                    <td data-col="delta">{signed(p.delta)}</td>
                    <td data-col="startedAt">{text(p.startedAt)}</td>
                    <td>
                      <a href={link.diff(p.before, p.after)}>diff</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </td>
        </tr>
      )}
    </>
  );
}

/** The answer: the question it answers, the table, and what was counted and left out. */
export function EffectsView({ answer }: { answer: EffectsAnswer }) {
  return (
    <>
      <p data-testid="effects-question">
        The effect on <code data-field="metric">{answer.metric.key}</code> of one change at a time: each run of an experiment against the
        previous run by number, pairs where exactly one setting differs, grouped by the change (numeric changes by{" "}
        {answer.groupBy === "FACTOR" ? "factor" : "value"})
        {answer.since ? (
          <>
            , pairs since <span data-field="since">{answer.since}</span>
          </>
        ) : null}
        .
      </p>
      {answer.truncated && <p className="notice">⚠ Truncated: the latest {answer.runsRead} runs were read.</p>}
      {answer.effects.length ? (
        <div className="table-scroll">
          <table className="compare" data-testid="effects-table">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {answer.effects.map((e, n) => (
                <EffectRows key={`${n}:${e.kind}:${e.label}`} effect={e} />
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted" data-testid="effects-none">
          No one-change pair.
        </p>
      )}
      <p data-testid="effects-counted">
        Counted: <span data-field="pairs">{answer.pairs}</span> pairs with exactly one change, of{" "}
        <span data-field="runsRead">{answer.runsRead}</span> runs. Left out: <span data-field="flaggedPairs">{answer.flaggedPairs}</span>{" "}
        flagged (more than one change), <span data-field="repeatPairs">{answer.repeatPairs}</span> with nothing changed.
      </p>
      <p className="muted">{"Δ: the later run's value minus the earlier run's, both finished."}</p>
    </>
  );
}

/** What worked in a project: every one-change pair of its experiments, by what changed. */
export function EffectsPage({ route }: { route: EffectsRoute }) {
  const skip = !route.metric;
  const { data, error, loading } = useQuery(
    EFFECTS_QUERY,
    { project: route.project, metric: route.metric, since: route.since || null, groupBy: apiGrouping(route.by) },
    skip,
  );
  const answer = data?.effects;
  return (
    <section>
      <h2>What worked in {route.project}</h2>
      {/* Keyed by the route: a link to another question shows its own values in the form. */}
      <EffectsForm key={formatRoute(route)} route={route} />
      {skip && (
        <p className="muted">
          Name a metric (a key such as <code>final:val/loss</code>, or a name) to see what each single change did to it.
        </p>
      )}
      {loading && <Loading what="Pairing the runs" />}
      {error && <ErrorView error={error} />}
      {answer && <EffectsView answer={answer} />}
    </section>
  );
}
