import { GUARDS_QUERY } from "../api/queries";
import type { Collisions, GuardsAnswer, MetricLint, NameLint, NameRuleReport } from "../api/types";
import { useQuery } from "../api/useQuery";
import { CopyButton } from "../components/CopyButton";
import { NodeLink } from "../components/NodeLink";
import { ProjectPicker } from "../components/ProjectPicker";
import { ErrorView, isNotFound, Loading } from "../components/Status";
import { breaksText, declareCommand, enforcedText, groupState, kindText, shellWord, spellingText } from "../lib/guards";
import { text } from "../lib/json";
import { link, type Route } from "../routes/route";
import { navigate } from "../routes/useRoute";

type GuardsRoute = Extract<Route, { page: "guards" }>;

/** A node link, or `—` for none. */
function Maybe({ id }: { id: string | null }) {
  return id ? <NodeLink id={id} /> : <>—</>;
}

/** Metric names spelled more ways than one: a row per group, and the flags that declare the rest. */
export function MetricSpellings({ lint }: { lint: MetricLint }) {
  const command = declareCommand(lint.project, lint.groups);
  return (
    <section data-guard="metrics">
      <h3>Metric spellings</h3>
      <p data-testid="metrics-summary">
        {lint.metrics} metric names; {lint.groups.length} spelled more ways than one.
      </p>
      <p data-testid="metric-aliases">
        {lint.aliases.length ? (
          <>Declared aliases: {lint.aliases.map((a) => `${a.alias} → ${a.canonical}`).join(", ")}.</>
        ) : (
          "No metric alias declared."
        )}
      </p>
      {lint.groups.length ? (
        <table className="compare" data-testid="metric-groups">
          <thead>
            <tr>
              <th>Spelling-blind key</th>
              <th>Canonical</th>
              <th>State</th>
              <th>Spellings (records, alias of)</th>
              <th>To declare</th>
            </tr>
          </thead>
          <tbody>
            {lint.groups.map((g) => (
              <tr key={g.key} data-group={g.key} className={g.settled ? undefined : "flagged"}>
                <td data-col="key">
                  <code>{g.key}</code>
                </td>
                <td data-col="canonical">
                  <code>{g.canonical}</code>
                </td>
                <td data-col="state">{groupState(g)}</td>
                <td data-col="names">
                  <ul>
                    {g.names.map((n) => (
                      <li key={n.name} data-spelling={n.name}>
                        {spellingText(n)}
                      </li>
                    ))}
                  </ul>
                </td>
                <td data-col="undeclared">{g.undeclared.length ? g.undeclared.join(", ") : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted" data-testid="metrics-none">
          Every metric name is spelled one way.
        </p>
      )}
      {command && (
        <p data-testid="metrics-declare">
          Declare the rest with <code>{command}</code> <CopyButton text={command} />{" "}
          <span className="muted">(a policy restates every rule: add the rest of the project&apos;s policy)</span>
        </p>
      )}
    </section>
  );
}

/** One kind's rule and the records that break it, each linked, with the name the rule builds. */
function RuleBreaks({ report }: { report: NameRuleReport }) {
  return (
    <div data-kind={report.kind}>
      <h4>
        {kindText(report.kind)} <code data-field="rule">{report.rule}</code>: <span data-field="breaks">{breaksText(report)}</span>
      </h4>
      {report.breaks.length ? (
        <table className="compare">
          <thead>
            <tr>
              <th>Record</th>
              <th>Name</th>
              <th>Problem</th>
              <th>Suggested name</th>
            </tr>
          </thead>
          <tbody>
            {report.breaks.map((b) => (
              <tr key={b.id} data-break={b.id}>
                <td data-col="id">
                  <NodeLink id={b.id} />
                </td>
                <td data-col="name">{text(b.name)}</td>
                <td data-col="problem">{b.problem}</td>
                <td data-col="suggestion">{b.suggestion ? <code>{b.suggestion}</code> : "— (the rule builds none)"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">Every one follows it.</p>
      )}
    </div>
  );
}

/** Per kind with a naming rule, the records whose names break it. */
export function NamingRules({ lint }: { lint: NameLint }) {
  return (
    <section data-guard="names">
      <h3>Naming rules</h3>
      {lint.kinds.length ? (
        <>
          <p data-testid="names-summary">
            {lint.rules} naming rule{lint.rules === 1 ? "" : "s"}, {enforcedText(lint.enforced)}.
          </p>
          {lint.kinds.map((k) => (
            <RuleBreaks key={k.kind} report={k} />
          ))}
        </>
      ) : (
        <p className="muted" data-testid="names-none">
          No naming rule declared (<code>provgraph policy set {shellWord(lint.project)} --name-rule KIND=TEMPLATE</code>).
        </p>
      )}
    </section>
  );
}

/** Outputs out of place, and URIs written by more than one job, their writers linked. */
export function StorageCollisions({ found }: { found: Collisions }) {
  const roots = found.storageRoots.length ? found.storageRoots.join(", ") : "none declared";
  return (
    <section data-guard="collisions">
      <h3>Storage</h3>
      <p data-testid="collisions-summary">
        {found.checked} output{found.checked === 1 ? "" : "s"} checked; storage roots: {roots} ({enforcedText(found.enforced)}).
      </p>
      {found.truncated && <p className="notice">⚠ Truncated: only the first {found.checked} outputs (by URI) were checked.</p>}
      <h4>Out of place ({found.outOfPlace.length})</h4>
      {found.outOfPlace.length ? (
        <table className="compare" data-testid="out-of-place">
          <thead>
            <tr>
              <th>Output</th>
              <th>Kind</th>
              <th>Problem</th>
              <th>Run</th>
              <th>Experiment</th>
            </tr>
          </thead>
          <tbody>
            {found.outOfPlace.map((o) => (
              <tr key={o.id} data-output={o.id} data-uri={o.uri}>
                <td data-col="id">
                  <NodeLink id={o.id} />
                </td>
                <td data-col="kind">{o.kind}</td>
                <td data-col="problem">{o.problem}</td>
                <td data-col="run">
                  <Maybe id={o.run} />
                </td>
                <td data-col="experiment">
                  <Maybe id={o.experiment} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted" data-testid="out-of-place-none">
          Nothing out of place.
        </p>
      )}
      <h4>Written by more than one job ({found.shared.length})</h4>
      {found.shared.length ? (
        found.shared.map((s) => (
          <div key={s.uri} data-shared={s.uri}>
            <p>
              <code>{s.uri}</code>, written by:
            </p>
            <table className="compare">
              <thead>
                <tr>
                  <th>Output</th>
                  <th>Kind</th>
                  <th>Run</th>
                  <th>Experiment</th>
                </tr>
              </thead>
              <tbody>
                {s.writers.map((w) => (
                  <tr key={w.id} data-writer={w.id}>
                    <td data-col="id">
                      <NodeLink id={w.id} />
                    </td>
                    <td data-col="kind">{w.kind}</td>
                    <td data-col="run">
                      <Maybe id={w.run} />
                    </td>
                    <td data-col="experiment">
                      <Maybe id={w.experiment} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))
      ) : (
        <p className="muted" data-testid="shared-none">
          No URI written by more than one job.
        </p>
      )}
    </section>
  );
}

/** The three reports of one answer. */
export function GuardsView({ answer }: { answer: GuardsAnswer }) {
  return (
    <>
      <MetricSpellings lint={answer.lintMetrics} />
      <NamingRules lint={answer.lintNames} />
      <StorageCollisions found={answer.collisions} />
    </>
  );
}

/** An unknown project, or one the token may not read: the API's words, and what to do. */
export function GuardsError({ error, project }: { error: Error; project: string }) {
  return (
    <>
      <ErrorView error={error} />
      {isNotFound(error) && (
        <p data-testid="guards-not-found">
          No project <code>{project}</code>, or you may not read it. <a href={link.search("", "")}>Search</a> for a project.
        </p>
      )}
    </>
  );
}

/** The guards of a project's conventions: metric spellings, names breaking their rule, outputs out of place. */
export function GuardsPage({ route }: { route: GuardsRoute }) {
  const { data, error, loading } = useQuery(GUARDS_QUERY, { project: route.project });
  return (
    <section>
      <h2>Guards of {route.project}</h2>
      <form className="inline" aria-label="Guards of a project" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="guards-project">Project</label>
        <ProjectPicker id="guards-project" value={route.project} allLabel="(choose)" onChange={(p) => p && navigate({ page: "guards", project: p })} />
      </form>
      <p className="muted">
        What breaks the conventions <code>provgraph policy set</code> declares (<code>--metric-alias</code>, <code>--name-rule</code>,{" "}
        <code>--storage-root</code>), as <code>provgraph lint-metrics</code>, <code>lint-names</code> and <code>collisions</code> report it.
      </p>
      {loading && <Loading what="Checking the conventions" />}
      {error && <GuardsError error={error} project={route.project} />}
      {data && !loading && <GuardsView answer={data} />}
    </section>
  );
}
