import { useEffect, useState, type FormEvent } from "react";
import { WHOIS_QUERY } from "../api/queries";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ProjectPicker } from "../components/ProjectPicker";
import { ErrorView, Loading } from "../components/Status";
import { nodeLabel } from "../graph/model";
import { NODE_TYPES, enumLabel } from "../graph/styles";
import { mergeHits, whoisVariables } from "../lib/search";
import type { Route } from "../routes/route";
import { link } from "../routes/route";
import { navigate } from "../routes/useRoute";

type SearchRoute = Extract<Route, { page: "search" }>;

/** Search by name, id, file URI or checksum, with type and project filters. */
export function SearchPage({ route }: { route: SearchRoute }) {
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
    <section>
      <h2>Search</h2>
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
      {route.project && (
        <p>
          Project <strong>{route.project}</strong>: <a href={link.digest(route.project)}>weekly digest</a>
        </p>
      )}
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
    </section>
  );
}
