import { IMPACT_QUERY } from "../api/queries";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { nodeLabel } from "../graph/model";
import { groupImpact, type ImpactEntry } from "../lib/impact";
import { link } from "../routes/route";

function Group({ title, entries, empty, testId }: { title: string; entries: ImpactEntry[]; empty: string; testId: string }) {
  return (
    <section data-testid={testId}>
      <h3>
        {title} ({entries.length})
      </h3>
      {entries.length ? (
        <ul>
          {entries.map((e) => (
            <li key={e.node.id} data-impact-id={e.node.id}>
              <NodeLink id={e.node.id} type={e.node.type} label={nodeLabel(e.node)} />
              {e.node.status ? ` — ${e.node.status}` : ""}
              {e.node.deploymentEnvironment ? ` in ${e.node.deploymentEnvironment}` : ""} ·{" "}
              <a href={link.lineage(e.node.id, "up", Math.min(e.hops, 20))}>lineage path ({e.hops} hop{e.hops === 1 ? "" : "s"})</a>
              {e.path.length > 0 && <div className="path muted" data-field="path">{e.path.join(" → ")}</div>}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{empty}</p>
      )}
    </section>
  );
}

/** What depends on a dataset version or checkpoint. */
export function ImpactPage({ id }: { id: string }) {
  const { data, error, loading } = useQuery(IMPACT_QUERY, { id });
  if (loading && !data) return <Loading what="Finding what depends on it" />;
  if (error) return <ErrorView error={error} id={id} />;
  if (!data?.root || data.impact === null) return <NotFound id={id} />;
  const groups = groupImpact(data);
  return (
    <section>
      <h2>
        Impact of <NodeLink id={id} type={data.root.type} label={nodeLabel(data.root)} />
      </h2>
      <p>
        <a href={link.lineage(id, "down")}>Downstream lineage graph</a>
      </p>
      <Group title="Live deployments" entries={groups.deployments} empty="No live deployment depends on it." testId="impact-deployments" />
      <Group title="Model versions" entries={groups.modelVersions} empty="No live model version depends on it." testId="impact-model-versions" />
      <Group title="Runs" entries={groups.runs} empty="No run depends on it." testId="impact-runs" />
      {groups.runsTruncated && <p className="notice">⚠ Truncated: more runs depend on it than shown.</p>}
      {groups.other.length > 0 && <Group title="Other" entries={groups.other} empty="" testId="impact-other" />}
    </section>
  );
}
