import { useState } from "react";
import { REPRODUCE_QUERY } from "../api/queries";
import { useQuery } from "../api/useQuery";
import { CopyButton } from "../components/CopyButton";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { recipeGaps, recipeSteps } from "../lib/recipe";

/** The recipe of a model version or checkpoint as a checklist with copy buttons. */
export function ReproducePage({ id }: { id: string }) {
  const { data, error, loading } = useQuery(REPRODUCE_QUERY, { id });
  const [done, setDone] = useState<Set<string>>(new Set());
  if (loading && !data) return <Loading what="Building the recipe" />;
  if (error) return <ErrorView error={error} id={id} />;
  if (!data?.reproduce) return <NotFound id={id} />;
  const steps = recipeSteps(data.reproduce);
  const gaps = recipeGaps(data.reproduce);
  const toggle = (key: string) =>
    setDone((old) => {
      const next = new Set(old);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return (
    <section>
      <h2>
        Reproduce <NodeLink id={id} />
      </h2>
      {gaps.length > 0 && (
        <div className="notice" role="alert" data-testid="recipe-gaps">
          <strong>⚠ The recipe is incomplete:</strong>
          <ul>
            {gaps.map((g) => (
              <li key={`${g.at}:${g.issue}`}>
                {g.at}: {g.issue}
              </li>
            ))}
          </ul>
        </div>
      )}
      <ol className="checklist" data-testid="recipe">
        {steps.map((s) => (
          <li key={s.key} className={done.has(s.key) ? "done" : ""} data-step={s.kind} data-step-id={s.id ?? undefined}>
            <label>
              <input type="checkbox" checked={done.has(s.key)} onChange={() => toggle(s.key)} /> <strong>{s.title}</strong>
            </label>
            {s.detail && <div className="detail">{s.detail}</div>}
            {s.copy && <CopyButton text={s.copy} />}
            {s.id && (
              <>
                {" "}
                <NodeLink id={s.id} label="open" />
              </>
            )}
          </li>
        ))}
      </ol>
      <details>
        <summary>The recipe as JSON</summary>
        <CopyButton text={JSON.stringify(data.reproduce, null, 2)} label="Copy JSON" />
        <pre>{JSON.stringify(data.reproduce, null, 2)}</pre>
      </details>
    </section>
  );
}
