import { IMPACT_QUERY } from "../api/queries";
import { useQuery } from "../api/useQuery";
import type { EvaluationResult } from "../api/types";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { Verdict } from "../components/Verdict";
import { nodeLabel } from "../graph/model";
import { groupImpact, scoreText, suiteText, type ImpactEntry } from "../lib/impact";
import { text } from "../lib/json";
import { link } from "../routes/route";

/** A model version's evaluation results, a row per metric, as `provgraph impact` lists them. */
export function EvaluationResults({ results }: { results: EvaluationResult[] }) {
  if (!results.length) {
    return (
      <p className="muted" data-testid="no-evaluations">
        No evaluation recorded.
      </p>
    );
  }
  return (
    <table data-testid="evaluation-results">
      <thead>
        <tr>
          <th>Suite</th>
          <th>Data</th>
          <th>Metric</th>
          <th>Result</th>
          <th>When</th>
        </tr>
      </thead>
      <tbody>
        {results.map((r) => (
          <tr key={`${r.evaluation} ${r.metric ?? ""}`} data-evaluation-id={r.evaluation} data-metric={r.metric ?? ""}>
            <td data-col="suite">
              <NodeLink id={r.evaluation} label={suiteText(r)} />
            </td>
            <td data-col="datasets">
              {r.datasets.length
                ? r.datasets.map((d, n) => (
                    <span key={d}>
                      {n ? ", " : ""}
                      <NodeLink id={d} />
                    </span>
                  ))
                : "no dataset"}
            </td>
            <td data-col="score">{scoreText(r)}</td>
            <td data-col="passed">
              <Verdict passed={r.passed} />
            </td>
            <td data-col="evaluatedAt">{text(r.evaluatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

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
              {e.node.type === "ModelVersion" && <EvaluationResults results={e.evaluations} />}
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
