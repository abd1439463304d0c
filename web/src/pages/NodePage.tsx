import { useState, type FormEvent } from "react";
import { NODE_QUERY } from "../api/queries";
import type { NodeCard } from "../api/types";
import { useQuery } from "../api/useQuery";
import { DatasetVersionCard } from "../components/cards/DatasetVersionCard";
import { ModelVersionCard } from "../components/cards/ModelVersionCard";
import { OtherCard } from "../components/cards/OtherCard";
import { RunCard } from "../components/cards/RunCard";
import { Field, Fields, Value } from "../components/Field";
import { HistoryList } from "../components/HistoryList";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { nodeLabel } from "../graph/model";
import { typeStyle } from "../graph/styles";
import { formatRoute, link } from "../routes/route";
import { navigate } from "../routes/useRoute";

function TypeCard({ node }: { node: NodeCard }) {
  switch (node.__typename) {
    case "DatasetVersion":
      return <DatasetVersionCard node={node} />;
    case "Run":
      return <RunCard node={node} />;
    case "ModelVersion":
      return <ModelVersionCard node={node} />;
    default:
      return <OtherCard node={node} />;
  }
}

/** Compare this run or model version with another one. */
function DiffForm({ id }: { id: string }) {
  const [other, setOther] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (other.trim()) navigate({ page: "diff", a: id, b: other.trim() });
  };
  return (
    <form className="inline" onSubmit={submit}>
      <label htmlFor="diff-other">Compare with</label>
      <input id="diff-other" value={other} onChange={(e) => setOther(e.target.value)} placeholder="another id of the same type" />
      <button type="submit">Diff</button>
    </form>
  );
}

function Actions({ node }: { node: NodeCard }) {
  const t = node.type;
  return (
    <nav className="actions" aria-label="About this node">
      <a href={link.lineage(node.id, "up")}>Upstream lineage</a>
      <a href={link.lineage(node.id, "down")}>Downstream lineage</a>
      {(t === "DatasetVersion" || t === "Checkpoint" || t === "Dataset" || t === "Run") && <a href={link.impact(node.id)}>Impact</a>}
      {(t === "ModelVersion" || t === "Checkpoint") && <a href={link.reproduce(node.id)}>Reproduce</a>}
      {t === "Experiment" && <a href={link.compare(node.id)}>Compare runs</a>}
      {(t === "ModelVersion" || t === "Experiment") && <a href={link.cost(node.id)}>Cost</a>}
      {node.__typename === "Run" && node.scaledFrom && <a href={link.scaleUp(node.id)}>Scale-up vs pilot</a>}
      {t === "Model" && (
        <a href={formatRoute({ page: "best", model: node.id, metric: "", dataset: "", project: "", higher: false })}>Best version</a>
      )}
      {node.project && <a href={link.digest(node.project)}>Project digest</a>}
      {node.project && <a href={link.effects(node.project)}>What worked in the project</a>}
      {node.project && <a href={link.guards(node.project)}>Project guards</a>}
    </nav>
  );
}

/** A node's archive card, laid out for people, and its event history. */
export function NodePage({ id }: { id: string }) {
  const { data, error, loading } = useQuery(NODE_QUERY, { id });
  if (loading && !data) return <Loading what="Loading the node" />;
  if (error) return <ErrorView error={error} id={id} />;
  const node = data?.node;
  if (!node) return <NotFound id={id} />;
  const style = typeStyle(node.type);
  return (
    <article className="card" data-node-card={node.id}>
      <header>
        <p className="type-tag" style={{ borderColor: style.colour }} data-field="type">
          <span aria-hidden="true">{style.glyph}</span> {style.label}
        </p>
        <h2 data-field="label">{nodeLabel(node)}</h2>
        {node.deletedAt && (
          <p className="warning" data-field="deletedAt">
            ⚠ DELETED at {node.deletedAt}
          </p>
        )}
        {node.placeholder && (
          <p className="warning" data-field="placeholder">
            ⚠ PLACEHOLDER: referenced by another event; its own event was never recorded
          </p>
        )}
        <Fields>
          <Field name="id" label="Id">
            <code>{node.id}</code>
          </Field>
          <Field name="project" label="Project">
            <Value value={node.project} />
          </Field>
          <Field name="firstSeenAt" label="First seen">
            <Value value={node.firstSeenAt} />
          </Field>
          <Field name="lastEventAt" label="Last event">
            <Value value={node.lastEventAt} />
          </Field>
        </Fields>
        <Actions node={node} />
        {(node.type === "Run" || node.type === "ModelVersion") && <DiffForm id={node.id} />}
      </header>
      <TypeCard node={node} />
      <HistoryList id={node.id} />
    </article>
  );
}
