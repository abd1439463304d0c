import { useState, type FormEvent, type ReactNode } from "react";
import { DIGEST_QUERY } from "../api/queries";
import type { DigestItem, DigestRun } from "../api/types";
import { useQuery } from "../api/useQuery";
import { CopyButton } from "../components/CopyButton";
import { NodeLink } from "../components/NodeLink";
import { ProjectPicker } from "../components/ProjectPicker";
import { ErrorView, Loading } from "../components/Status";
import { text } from "../lib/json";
import { compactIso, humanDuration, isoToLocalInput, laterUntil, localInputToIso } from "../lib/time";
import { formatRoute, type Route } from "../routes/route";
import { navigate } from "../routes/useRoute";

type DigestRoute = Extract<Route, { page: "digest" }>;

/** One section of the digest; `name` is the answer's field it shows. */
function Section({ name, title, count, children }: { name: string; title: string; count: number; children: ReactNode }) {
  return (
    <section data-digest-section={name} data-count={count}>
      <h3>
        {title} ({count})
      </h3>
      {count ? children : <p className="muted">None.</p>}
    </section>
  );
}

function RunTable({ runs }: { runs: DigestRun[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Run</th>
          <th>Experiment</th>
          <th>Status</th>
          <th>Person</th>
          <th>Started</th>
          <th>Ended</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} data-item={r.id}>
            <td>
              <NodeLink id={r.id} label={`${r.name ?? r.id}${r.runNumber != null ? ` #${r.runNumber}` : ""}`} />
            </td>
            <td>{r.experiment ? <NodeLink id={r.experiment} /> : "—"}</td>
            <td>{text(r.status)}</td>
            <td>
              {r.person} <span className="muted">({r.personBasis})</span>
            </td>
            <td>{text(r.startedAt)}</td>
            <td>{text(r.endedAt)}</td>
            <td>{r.error ? `${text(r.error.type)}: ${text(r.error.message)}` : "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ItemTable({ items }: { items: DigestItem[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>When</th>
          <th>Event</th>
          <th>What</th>
          <th>Person</th>
          <th>Status</th>
        </tr>
      </thead>
      <tbody>
        {items.map((i, n) => (
          <tr key={`${i.at}:${i.id ?? n}`} data-item={i.id ?? i.modelVersion ?? undefined}>
            <td>{i.at}</td>
            <td>{i.eventType}</td>
            <td>
              {i.id ? <NodeLink id={i.id} label={[i.name, i.version].filter(Boolean).join(" ") || i.id} /> : null}
              {/* The model version a feedback event was about, beside its deployment. */}
              {i.modelVersion && i.modelVersion !== i.id ? (
                <>
                  {i.id ? " about " : ""}
                  <NodeLink id={i.modelVersion} />
                </>
              ) : null}
              {!i.id && !i.modelVersion ? "—" : null}
            </td>
            <td>{i.person}</td>
            <td>{text(i.toStatus)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const WINDOWS = ["24h", "7d", "14d", "30d"];

/** The project, the window's length and its end (now, or a time to look at a past window). */
function WindowForm({ route }: { route: DigestRoute }) {
  const [until, setUntil] = useState(isoToLocalInput(route.until));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({ ...route, until: localInputToIso(until) });
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="Digest window">
      <label htmlFor="digest-project">Project</label>
      <ProjectPicker id="digest-project" value={route.project} allLabel="(choose)" onChange={(p) => p && navigate({ ...route, project: p })} />
      <label htmlFor="digest-since">Window</label>
      <select id="digest-since" value={route.since} onChange={(e) => navigate({ ...route, since: e.target.value })}>
        {WINDOWS.concat(WINDOWS.includes(route.since) ? [] : [route.since]).map((s) => (
          <option key={s} value={s}>
            {route.until ? s : `last ${s}`}
          </option>
        ))}
      </select>
      <label htmlFor="digest-until">ending (empty: now)</label>
      <input id="digest-until" type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
      <button type="submit">Show</button>
      {route.until && (
        <button type="button" onClick={() => navigate({ ...route, until: "" })}>
          Now
        </button>
      )}
    </form>
  );
}

/** The weekly digest of a project as tables. */
export function DigestPage({ route }: { route: DigestRoute }) {
  const { data, error, loading } = useQuery(DIGEST_QUERY, {
    projects: [route.project],
    since: route.since,
    until: route.until || null,
  });
  const d = data?.digest;
  const later = route.until ? laterUntil(route.until, route.since) : null;
  return (
    <section>
      <h2>Digest of {route.project}</h2>
      {/* Keyed by the route: a link to another window shows its own end in the form. */}
      <WindowForm key={formatRoute(route)} route={route} />
      {d && (
        <p className="actions" data-testid="digest-windows">
          <a href={formatRoute({ ...route, until: compactIso(d.since) })}>← the {route.since} before</a>
          {later !== null && <a href={formatRoute({ ...route, until: later })}>the {route.since} after →</a>}
        </p>
      )}
      {loading && <Loading what="Building the digest" />}
      {error && <ErrorView error={error} />}
      {d && (
        <>
          <p>
            From <span data-field="since">{d.since}</span> to <span data-field="until">{d.until}</span>. People by {d.personBasis}.{" "}
            <span data-field="runsWithoutResources">{d.runsWithoutResources}</span> run(s) without recorded resources.{" "}
            <CopyButton text={d.markdown} label="Copy as Markdown" />
          </p>
          {d.truncated && <p className="notice">⚠ Truncated: the window held more than the digest shows.</p>}
          <Section name="people" title="People" count={d.people.length}>
            <table>
              <thead>
                <tr>
                  <th>Person</th>
                  <th>Started</th>
                  <th>Finished</th>
                  <th>Failed</th>
                  <th>Aborted</th>
                  <th>Running</th>
                </tr>
              </thead>
              <tbody>
                {d.people.map((p) => (
                  <tr key={p.person} data-item={p.person}>
                    <td>
                      {p.person} <span className="muted">({p.basis})</span>
                    </td>
                    <td data-count-of="started">{p.started.length}</td>
                    <td data-count-of="finished">{p.finished.length}</td>
                    <td data-count-of="failed">{p.failed.length}</td>
                    <td data-count-of="aborted">{p.aborted.length}</td>
                    <td data-count-of="running">{p.running.length}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section name="stalled" title="Stalled runs" count={d.stalled.length}>
            <RunTable runs={d.stalled.map((s) => s.run)} />
            <ul className="muted">
              {d.stalled.map((s) => (
                <li key={s.run.id}>
                  {s.run.id}: no event for <span title={`${Math.round(s.idleSeconds)} s`}>{humanDuration(s.idleSeconds)}</span> (the last at{" "}
                  {s.lastEventAt})
                </li>
              ))}
            </ul>
          </Section>
          <Section name="repeatedFailures" title="Repeated failures" count={d.repeatedFailures.length}>
            <table>
              <thead>
                <tr>
                  <th>Experiment</th>
                  <th>Failures</th>
                  <th>Errors</th>
                </tr>
              </thead>
              <tbody>
                {d.repeatedFailures.map((f) => (
                  <tr key={f.experiment} data-item={f.experiment}>
                    <td>
                      <NodeLink id={f.experiment} />
                    </td>
                    <td>{f.failures}</td>
                    <td>{f.errors.join("; ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section name="conclusionMissing" title="Conclusion missing" count={d.conclusionMissing.length}>
            <RunTable runs={d.conclusionMissing} />
          </Section>
          <Section name="datasetVersions" title="New dataset versions" count={d.datasetVersions.length}>
            <ItemTable items={d.datasetVersions} />
          </Section>
          <Section name="modelVersions" title="New model versions" count={d.modelVersions.length}>
            <ItemTable items={d.modelVersions} />
          </Section>
          <Section name="statusChanges" title="Status changes" count={d.statusChanges.length}>
            <ItemTable items={d.statusChanges} />
          </Section>
          <Section name="deployments" title="Deployments" count={d.deployments.length}>
            <ItemTable items={d.deployments} />
          </Section>
          <Section name="feedback" title="Feedback" count={d.feedback.length}>
            <ItemTable items={d.feedback} />
          </Section>
          <Section name="acceleratorHoursByPerson" title="Accelerator-hours by person" count={d.acceleratorHoursByPerson.length}>
            <table>
              <tbody>
                {d.acceleratorHoursByPerson.map((a) => (
                  <tr key={a.key} data-item={a.key}>
                    <td>{a.key}</td>
                    <td data-field="acceleratorHours">{text(a.acceleratorHours)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section name="acceleratorHoursByProject" title="Accelerator-hours by project" count={d.acceleratorHoursByProject.length}>
            <table>
              <tbody>
                {d.acceleratorHoursByProject.map((a) => (
                  <tr key={a.key} data-item={a.key}>
                    <td>{a.key}</td>
                    <td data-field="acceleratorHours">{text(a.acceleratorHours)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
        </>
      )}
    </section>
  );
}
