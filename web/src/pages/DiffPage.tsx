import { DIFF_QUERY } from "../api/queries";
import { useQuery } from "../api/useQuery";
import { DiffTableRow, diffRowKey } from "../components/DiffTableRow";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";
import { VersionSteps } from "../components/VersionSteps";
import { diffChain, diffRows } from "../lib/diff";
import { versionSteps } from "../lib/versionSteps";
import { asObject } from "../lib/json";
import { link } from "../routes/route";

/** Two runs or two model versions side by side, differences highlighted and marked in text. */
export function DiffPage({ a, b }: { a: string; b: string }) {
  const { data, error, loading } = useQuery(DIFF_QUERY, { a, b });
  if (loading && !data) return <Loading what="Comparing" />;
  if (error) return <ErrorView error={error} id={`${a} / ${b}`} />;
  if (!data?.diff) return <NotFound id={`${a} / ${b}`} />;
  const rows = diffRows(data.diff);
  const chain = diffChain(data.diff);
  const runs = asObject(asObject(data.diff).runs);
  const differing = rows.filter((r) => r.change !== "same").length;
  return (
    <section>
      <h2>Diff</h2>
      <p>
        <NodeLink id={a} /> (a) versus <NodeLink id={b} /> (b) · <a href={link.diff(b, a)}>swap</a>
      </p>
      {typeof runs.a === "string" && typeof runs.b === "string" && (runs.a !== a || runs.b !== b) && (
        <p className="muted" data-testid="diff-runs">
          Compared through the runs that produced them: <NodeLink id={runs.a} /> and <NodeLink id={runs.b} />.
        </p>
      )}
      <p role="status" data-testid="diff-count">
        {differing} difference(s).
      </p>
      <table className="diff" data-testid="diff-table">
        <thead>
          <tr>
            <th>Aspect</th>
            <th>Name</th>
            <th>a</th>
            <th>b</th>
            <th>Difference</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <DiffTableRow key={diffRowKey(r)} row={r} />
          ))}
        </tbody>
      </table>
      <VersionSteps steps={versionSteps(data.diff)} />
      {chain.length > 0 && (
        <>
          <h3>Up the base-model chain</h3>
          <ol data-testid="diff-chain">
            {chain.map((level) => (
              <li key={level.level} className={level.differs ? "diff-changed" : ""} data-differs={level.differs}>
                {level.differs ? "≠ " : "= "}
                {level.a ?? "—"} vs {level.b ?? "—"}: {level.summary}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
