import { useState, type FormEvent } from "react";
import { COST_QUERY } from "../api/queries";
import type { CostAnswer, CostGain, RunCost } from "../api/types";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading } from "../components/Status";
import { acceleratorHoursText, baseShareText, checkpointsText, gainText, lostText, storageText } from "../lib/costs";
import { text } from "../lib/json";
import { formatRoute, type Route } from "../routes/route";
import { navigate } from "../routes/useRoute";

type CostRoute = Extract<Route, { page: "cost" }>;

/** The columns of the runs table, as `provgraph cost` prints them. */
const COLUMNS = ["Run", "Name", "Status", "Role", "Hours", "Accelerators", "Acc-hours", "Interruptions", "Lost acc-hours", "Checkpoints"];

/** Whether `id` names an experiment: an experiment has no base model version to share. */
function isExperiment(id: string): boolean {
  return id.startsWith("experiment:");
}

/**
 * Whether to add the base model version's share: the route says, the checkbox asks again (it
 * shows its new state at once, before the route's change arrives).
 */
function BaseToggle({ route }: { route: CostRoute }) {
  const [checked, setChecked] = useState(route.base);
  const change = (base: boolean) => {
    setChecked(base);
    navigate({ ...route, base });
  };
  return (
    <form className="inline" aria-label="Cost question" onSubmit={(e) => e.preventDefault()}>
      <label>
        <input id="cost-base" type="checkbox" checked={checked} onChange={(e) => change(e.target.checked)} /> Include the base model
        version&apos;s share (its cost over the runs that started from it)
      </label>
    </form>
  );
}

/** The evaluation set's dataset versions as the form's field has them: separated by commas or spaces. */
function datasetList(field: string): string[] {
  return field.split(/[\s,]+/).filter(Boolean);
}

/**
 * A model version's gain question: the metric, the evaluation set (dataset versions and
 * suite, as `best` chooses one) and whether higher is better; asked by the route.
 */
function GainForm({ route }: { route: CostRoute }) {
  const [metric, setMetric] = useState(route.metric);
  const [datasets, setDatasets] = useState(route.datasets.join(", "));
  const [suite, setSuite] = useState(route.suite);
  const [higher, setHigher] = useState(route.higher);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({ ...route, metric: metric.trim(), datasets: datasetList(datasets), suite: suite.trim(), higher });
  };
  return (
    <form className="inline" aria-label="Gain question" onSubmit={submit}>
      <label htmlFor="cost-metric">Metric</label>
      <input id="cost-metric" value={metric} onChange={(e) => setMetric(e.target.value)} placeholder="acc" />
      <label htmlFor="cost-datasets">Evaluation dataset versions</label>
      <input id="cost-datasets" value={datasets} onChange={(e) => setDatasets(e.target.value)} placeholder="dataset:p/eval@v1" />
      <label htmlFor="cost-suite">Suite</label>
      <input id="cost-suite" value={suite} onChange={(e) => setSuite(e.target.value)} />
      <label>
        <input id="cost-higher" type="checkbox" checked={higher} onChange={(e) => setHigher(e.target.checked)} /> Higher is better
      </label>
      <button type="submit">Gain per point</button>
    </form>
  );
}

/** The gain over the previous best and the accelerator-hours per point, as `provgraph cost --metric` prints it. */
export function GainView({ gain }: { gain: CostGain }) {
  const previous = gain.previousBest;
  return (
    <div data-testid="cost-gain-answer">
      <p data-testid="cost-gain">{gainText(gain)}</p>
      <dl className="fields">
        <div className="field">
          <dt>Value</dt>
          <dd data-field="value">{text(gain.value)}</dd>
        </div>
        <div className="field">
          <dt>Previous best</dt>
          <dd data-field="previousBest">
            {previous ? (
              <>
                <NodeLink id={previous.version} /> = {text(previous.value)}
              </>
            ) : (
              "—"
            )}
          </dd>
        </div>
        <div className="field">
          <dt>Gain</dt>
          <dd data-field="gain">
            {text(gain.gain)} ({gain.higherIsBetter ? "higher" : "lower"} is better; better is positive)
          </dd>
        </div>
        <div className="field">
          <dt>Accelerator-hours a point</dt>
          <dd data-field="acceleratorHoursPerPoint">{text(gain.acceleratorHoursPerPoint)}</dd>
        </div>
      </dl>
      <p className="muted">
        A point is 0.01 of the metric; the previous best is the best of the versions registered before this one on the same evaluation set;
        the accelerator-hours are this version&apos;s (with the base&apos;s share when it is included).
      </p>
    </div>
  );
}

/** One run's row: its role, hours, accelerators, accelerator-hours, lost work and storage. */
export function RunCostRow({ run }: { run: RunCost }) {
  return (
    <tr data-run={run.id} data-role={run.role}>
      <td data-col="run">
        <NodeLink id={run.id} />
      </td>
      <td data-col="name">{text(run.name)}</td>
      <td data-col="status" className={run.status ? `status-${run.status}` : undefined}>
        {text(run.status)}
      </td>
      <td data-col="role">{run.role}</td>
      <td data-col="hours">{text(run.hours)}</td>
      <td data-col="accelerators">{text(run.accelerators)}</td>
      <td data-col="acceleratorHours">{text(run.acceleratorHours)}</td>
      <td data-col="interruptions">{run.interruptions}</td>
      <td data-col="lostAcceleratorHours" title={`${text(run.lostHours)} hours lost`}>
        {text(run.lostAcceleratorHours)}
      </td>
      <td data-col="checkpoints">{checkpointsText(run)}</td>
    </tr>
  );
}

/** A row of the sums table. */
function SumRow({ name, runs, hours, acceleratorHours }: { name: string; runs: number | null; hours: number; acceleratorHours: number }) {
  return (
    <tr data-role={name}>
      <th scope="row" data-col="role">
        {name}
      </th>
      <td data-col="runs">{text(runs)}</td>
      <td data-col="hours">{text(hours)}</td>
      <td data-col="acceleratorHours">{text(acceleratorHours)}</td>
    </tr>
  );
}

/** What the cost is made of: a model version's producing run, or an experiment's runs. */
function Origin({ answer }: { answer: CostAnswer }) {
  if (answer.kind !== "model_version") {
    return <p data-testid="cost-origin">The experiment&apos;s runs, by outcome: completed, failed attempts, running.</p>;
  }
  if (!answer.run) return <p data-testid="cost-origin">No recorded run made this model version.</p>;
  return (
    <p data-testid="cost-origin">
      Made by <NodeLink id={answer.run} />
      {answer.experiment ? (
        <>
          {" "}
          of <NodeLink id={answer.experiment} />
        </>
      ) : null}
      : its producing run, and the failed attempts of its experiment that started before it ended.
    </p>
  );
}

/** The answer: the runs, the sums by role, the work lost, the storage and the base's share. */
export function CostView({ answer, base }: { answer: CostAnswer; base: boolean }) {
  const t = answer.totals;
  return (
    <>
      <Origin answer={answer} />
      {answer.truncated && <p className="notice">⚠ Truncated: the experiment&apos;s earliest runs are left out.</p>}
      {answer.runs.length ? (
        <div className="table-scroll">
          <table className="compare" data-testid="cost-runs">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {answer.runs.map((r) => (
                <RunCostRow key={r.id} run={r} />
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted" data-testid="cost-none">
          No run recorded.
        </p>
      )}
      <h3>By role</h3>
      <table data-testid="cost-roles">
        <thead>
          <tr>
            <th>Role</th>
            <th>Runs</th>
            <th>Hours</th>
            <th>Acc-hours</th>
          </tr>
        </thead>
        <tbody>
          {t.byRole.map((r) => (
            <SumRow key={r.role} name={r.role} runs={r.runs} hours={r.hours} acceleratorHours={r.acceleratorHours} />
          ))}
          <SumRow name="total" runs={answer.runs.length} hours={t.hours} acceleratorHours={t.acceleratorHours} />
          {answer.base && (
            <SumRow name="base's share" runs={null} hours={answer.base.shareHours} acceleratorHours={answer.base.shareAcceleratorHours} />
          )}
          {answer.withBase && (
            <SumRow name="with the base's share" runs={null} hours={answer.withBase.hours} acceleratorHours={answer.withBase.acceleratorHours} />
          )}
        </tbody>
      </table>
      <p data-testid="cost-acceleratorHours">{acceleratorHoursText(t)}</p>
      <p data-testid="cost-lost">{lostText(t)}</p>
      <p data-testid="cost-storage">{storageText(t)}</p>
      {t.runsWithoutResources.length > 0 && (
        <p data-testid="cost-without-resources">
          without recorded resources (hours only):{" "}
          {t.runsWithoutResources.map((id, n) => (
            <span key={id}>
              {n ? ", " : ""}
              <NodeLink id={id} />
            </span>
          ))}
        </p>
      )}
      {answer.base ? (
        <>
          <p data-testid="cost-base">
            base <NodeLink id={answer.base.modelVersion} />: {baseShareText(answer.base, answer.withBase)}
          </p>
          <p className="muted" data-testid="cost-base-origin">
            The base was made by {answer.base.run ? <NodeLink id={answer.base.run} /> : "no recorded run"}; {answer.base.users} run
            {answer.base.users === 1 ? "" : "s"} started from it, each carrying {text(answer.base.share)} of its cost.
          </p>
        </>
      ) : (
        base &&
        answer.kind === "model_version" && (
          <p className="muted" data-testid="cost-no-base">
            This model version started from no other: there is no base to share.
          </p>
        )
      )}
      <p className="muted">
        Hours: each run&apos;s running time, from its start or a resume to its next end. Accelerator-hours: hours × accelerators
        (num_nodes × devices_per_node); a run without recorded resources counts in hours only. Lost: per interruption, the time since
        the last checkpoint. Checkpoints: the sizes they recorded.
      </p>
    </>
  );
}

/** What a model version or an experiment cost, failed attempts and lost work included. */
export function CostPage({ route }: { route: CostRoute }) {
  const { data, error, loading } = useQuery(COST_QUERY, {
    id: route.id,
    includeBase: route.base,
    metric: route.metric || null,
    datasets: route.metric && route.datasets.length ? route.datasets : null,
    suite: (route.metric && route.suite) || null,
    higherIsBetter: Boolean(route.metric) && route.higher,
  });
  const answer = data?.cost;
  return (
    <section>
      <h2>
        Cost of <NodeLink id={route.id} />
      </h2>
      {/* Keyed by the route: a link (or Back) to the other question shows its own state. */}
      {!isExperiment(route.id) && <BaseToggle key={formatRoute(route)} route={route} />}
      {!isExperiment(route.id) && <GainForm key={`gain ${formatRoute(route)}`} route={route} />}
      {loading && <Loading what="Adding up the runs" />}
      {error && <ErrorView error={error} id={route.id} />}
      {answer?.gain && <GainView gain={answer.gain} />}
      {answer && <CostView answer={answer} base={route.base} />}
    </section>
  );
}
