import { factText, stepHead, type VersionStep } from "../lib/versionSteps";
import { NodeLink } from "./NodeLink";

/** Each dataset version step of a diff: the two versions' recorded facts side by side, those that differ marked. */
export function VersionSteps({ steps }: { steps: VersionStep[] }) {
  if (!steps.length) return null;
  return (
    <>
      <h3>Dataset versions opened</h3>
      {steps.map((s) => (
        <div key={`${s.role} ${s.a} ${s.b}`} data-testid="version-step" data-dataset={s.dataset} data-role={s.role}>
          <p data-field="step-head">{stepHead(s)}</p>
          <table className="diff">
            <thead>
              <tr>
                <th>Fact</th>
                <th>
                  <NodeLink id={s.a} /> (a)
                </th>
                <th>
                  <NodeLink id={s.b} /> (b)
                </th>
                <th>Difference</th>
              </tr>
            </thead>
            <tbody>
              {s.facts.map((f) => (
                <tr key={f.name} data-fact={f.name} data-changed={f.changed} className={f.changed ? "diff-changed" : undefined}>
                  <td data-col="name">{f.name}</td>
                  <td data-col="a">{factText(f.a)}</td>
                  <td data-col="b">{factText(f.b)}</td>
                  <td data-col="change">{f.changed ? "≠ changed" : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </>
  );
}
