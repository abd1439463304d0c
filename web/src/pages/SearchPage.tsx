import { useEffect, useState, type FormEvent } from "react";
import { LESSONS_QUERY, WHOIS_QUERY } from "../api/queries";
import type { LessonSearch } from "../api/types";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ProjectPicker } from "../components/ProjectPicker";
import { ErrorView, Loading } from "../components/Status";
import { nodeLabel } from "../graph/model";
import { NODE_TYPES, enumLabel } from "../graph/styles";
import { text } from "../lib/json";
import { LESSON_KINDS, filtered, lessonsVariables } from "../lib/lessons";
import { mergeHits, whoisVariables } from "../lib/search";
import type { LessonsRoute, Route } from "../routes/route";
import { formatRoute, link } from "../routes/route";
import { navigate } from "../routes/useRoute";

type SearchRoute = Extract<Route, { page: "search" }>;
type NamesRoute = Exclude<SearchRoute, LessonsRoute>;

/**
 * Search by name, id, file URI or checksum, with type and project filters; or, in its lessons
 * mode, search what earlier attempts concluded.
 */
export function SearchPage({ route }: { route: SearchRoute }) {
  const lessons = route.mode === "lessons";
  return (
    <section>
      <h2>Search</h2>
      <nav className="modes" aria-label="Search for">
        <a href={link.search(route.q, route.project)} aria-current={lessons ? undefined : "page"}>
          Names, ids, URIs, checksums
        </a>
        <a href={link.lessons(route.q, route.project)} aria-current={lessons ? "page" : undefined}>
          Lessons: what earlier attempts concluded
        </a>
      </nav>
      {lessons ? <LessonsSearch route={route} /> : <NamesSearch route={route} />}
    </section>
  );
}

function ProjectLinks({ project }: { project: string }) {
  return project ? (
    <p>
      Project <strong>{project}</strong>: <a href={link.digest(project)}>weekly digest</a> ·{" "}
      <a href={link.effects(project)}>what worked (effects)</a> ·{" "}
      <a href={link.guards(project)}>guards (conventions broken)</a>
    </p>
  ) : null;
}

/** By name, id, file URI or checksum. */
function NamesSearch({ route }: { route: NamesRoute }) {
  const [q, setQ] = useState(route.q);
  const [type, setType] = useState(route.type);
  const [project, setProject] = useState(route.project);
  useEffect(() => {
    setQ(route.q);
    setType(route.type);
    setProject(route.project);
  }, [route.q, route.type, route.project]);

  const variables = { ...whoisVariables(route.q, route.type, route.project) };
  const { data, error, loading } = useQuery(WHOIS_QUERY, variables, !route.q.trim());
  const hits = data ? mergeHits(data, route.type, route.project) : [];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({ page: "search", q, type, project });
  };

  return (
    <>
      <form className="search" onSubmit={submit} role="search">
        <label htmlFor="q">Name, id, file URI or checksum</label>
        <input id="q" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="resnet, run:…, s3://…, sha256:…" />
        <label htmlFor="type">Type</label>
        <select id="type" value={type} onChange={(e) => setType(e.target.value)}>
          <option value="">All types</option>
          {NODE_TYPES.map((t) => (
            <option key={t} value={t}>
              {enumLabel(t)}
            </option>
          ))}
        </select>
        <label htmlFor="project">Project</label>
        <ProjectPicker id="project" value={project} onChange={setProject} />
        <button type="submit">Search</button>
      </form>
      <ProjectLinks project={route.project} />
      {loading && <Loading what="Searching" />}
      {error && <ErrorView error={error} />}
      {data && (
        <>
          <p role="status">
            {hits.length} result{hits.length === 1 ? "" : "s"}
            {route.project ? ` in project ${route.project}` : ""}
          </p>
          <ul className="results" data-testid="search-results">
            {hits.map((hit) => (
              <li key={hit.node.id} data-result-id={hit.node.id}>
                <NodeLink id={hit.node.id} type={hit.node.type} label={nodeLabel(hit.node)} />{" "}
                <span className="muted">
                  {hit.node.id} · {hit.node.project ?? "no project"} · matched by {hit.matchedBy.join(", ")}
                  {hit.node.deletedAt ? " · DELETED" : ""}
                  {hit.node.placeholder ? " · PLACEHOLDER" : ""}
                </span>{" "}
                <a href={link.lineage(hit.node.id)}>lineage</a>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** The words and the filters of a lessons search; each filter as `provgraph search` takes it. */
function LessonsForm({ route }: { route: LessonsRoute }) {
  const [q, setQ] = useState(route.q);
  const [project, setProject] = useState(route.project);
  const [kinds, setKinds] = useState(route.kinds);
  const [status, setStatus] = useState(route.status);
  const [metric, setMetric] = useState(route.metric);
  const [param, setParam] = useState(route.param);
  const [uses, setUses] = useState(route.uses);
  const toggle = (kind: string) => setKinds(kinds.includes(kind) ? kinds.filter((k) => k !== kind) : [...kinds, kind]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({
      page: "search",
      mode: "lessons",
      q,
      project,
      // In the order the form lists them; a kind the link named that the form does not list stays.
      kinds: [...LESSON_KINDS.map((k) => k.kind).filter((k) => kinds.includes(k)), ...kinds.filter((k) => !LESSON_KINDS.some((l) => l.kind === k))],
      status: status.trim(),
      metric: metric.trim(),
      param: param.trim(),
      uses: uses.trim(),
    });
  };
  return (
    <form className="search lessons-form" onSubmit={submit} role="search" aria-label="Lessons">
      <label htmlFor="lessons-q">Words in goals, conclusions, errors, abort reasons, descriptions, change notes, incidents</label>
      <input id="lessons-q" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="out of memory" />
      <label htmlFor="lessons-project">Project</label>
      <ProjectPicker id="lessons-project" value={project} onChange={setProject} />
      <fieldset className="kinds">
        <legend>Kinds (none checked: all)</legend>
        {LESSON_KINDS.map(({ kind, label }) => (
          <label key={kind}>
            <input id={`lessons-kind-${kind}`} type="checkbox" checked={kinds.includes(kind)} onChange={() => toggle(kind)} /> {label}
          </label>
        ))}
      </fieldset>
      <label htmlFor="lessons-status">Status</label>
      <input id="lessons-status" value={status} onChange={(e) => setStatus(e.target.value)} placeholder="failed" size={10} />
      <label htmlFor="lessons-metric">Runs whose metric</label>
      <input id="lessons-metric" value={metric} onChange={(e) => setMetric(e.target.value)} placeholder="final:val/loss<1.5" />
      <label htmlFor="lessons-param">Runs with param</label>
      <input id="lessons-param" value={param} onChange={(e) => setParam(e.target.value)} placeholder="lr=2e-5" size={12} />
      <label htmlFor="lessons-uses">Used dataset version</label>
      <input id="lessons-uses" value={uses} onChange={(e) => setUses(e.target.value)} placeholder="dataset:p/name@v1" />
      <button type="submit">Search</button>
    </form>
  );
}

/**
 * A lessons answer: its hits best first, as `provgraph search` prints them (id, type, status,
 * experiment, then each matching text as `field: text`), and whether more matched.
 * `filtered`: the search was kept to more than its words.
 */
export function LessonsView({ answer, filtered = false }: { answer: LessonSearch; filtered?: boolean }) {
  const n = answer.hits.length;
  return (
    <>
      <p role="status" data-testid="lessons-count">
        {n ? `${n} hit${n === 1 ? "" : "s"}` : "No hit"} for “{answer.text}”{n > 1 ? ", best first" : ""}.
      </p>
      {filtered && (
        <p className="muted" data-testid="lessons-candidates">
          The filters keep these of the index&apos;s best {answer.candidates} matches of the words.
        </p>
      )}
      {answer.truncated && (
        <p className="notice" data-testid="lessons-truncated">
          ⚠ More hits matched than the {n} shown: add a word or a filter to narrow the search.
        </p>
      )}
      <ol className="results lessons" data-testid="lesson-hits">
        {answer.hits.map((hit) => (
          <li key={hit.id} data-lesson-hit={hit.id} data-type={hit.type}>
            <NodeLink id={hit.id} type={hit.type} label={hit.id} />{" "}
            <span className="muted">
              <span data-col="status" className={hit.status ? `status-${hit.status}` : undefined}>
                {text(hit.status)}
              </span>{" "}
              · experiment <span data-col="experiment">{hit.experiment ? <NodeLink id={hit.experiment} /> : "—"}</span> · project{" "}
              <span data-col="project">{text(hit.project)}</span> · score <span data-col="score">{text(hit.score)}</span>
            </span>
            <ul className="lesson-matches">
              {hit.matches.map((m, i) => (
                <li key={`${i}:${m.field}`} data-match-field={m.field}>
                  <span className="muted" data-part="field">
                    {m.field}
                  </span>
                  : <span data-part="text">{m.text}</span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </>
  );
}

/** What earlier attempts concluded: the full-text index of goals, conclusions, errors... */
function LessonsSearch({ route }: { route: LessonsRoute }) {
  const skip = !route.q.trim();
  const { data, error, loading } = useQuery(LESSONS_QUERY, lessonsVariables(route), skip);
  return (
    <>
      {/* Keyed by the route: a link to another search shows its own values in the form. */}
      <LessonsForm key={formatRoute(route)} route={route} />
      <ProjectLinks project={route.project} />
      {skip && (
        <p className="muted">
          Give words to look for (any of them; texts holding more rank higher): an error (<code>out of memory</code>), a finding (
          <code>diverged</code>), an incident.
        </p>
      )}
      {loading && <Loading what="Searching the lessons" />}
      {error && <ErrorView error={error} />}
      {data && <LessonsView answer={data.lessons} filtered={filtered(route)} />}
    </>
  );
}
