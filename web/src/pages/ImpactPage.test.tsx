import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { link } from "../routes/route";
import { EvaluationResults } from "./ImpactPage";

const plain = (inner: string) => inner.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim();

/** The text of every `data-col` cell of the HTML, in order. */
function cells(html: string): string[] {
  return [...html.matchAll(/data-col="([^"]+)"[^>]*>(.*?)<\/td>/g)].map((m) => `${m[1]}=${plain(m[2])}`);
}

describe("a model version's evaluation results on the impact page", () => {
  const row = {
    evaluation: "evaluation:1",
    suite: "demo-eval",
    suiteVersion: "2",
    datasets: ["dataset:p/eval@v1", "dataset:p/extra@v1"],
    metric: "acc",
    value: 0.66,
    passed: false,
    evaluatedAt: "2026-01-05T17:50:00.000000Z",
  };

  it("has a row per metric: suite (linked to the evaluation), data (linked), score, verdict, when", () => {
    const html = renderToString(<EvaluationResults results={[row, { ...row, metric: null, value: null, datasets: [], passed: null }]} />);
    expect(cells(html)).toEqual([
      "suite=demo-eval 2",
      "datasets=dataset:p/eval@v1, dataset:p/extra@v1",
      "score=acc = 0.66",
      "passed=✘ fail",
      "evaluatedAt=2026-01-05T17:50:00.000000Z",
      "suite=demo-eval 2",
      "datasets=no dataset",
      "score=no metric",
      "passed=? unknown",
      "evaluatedAt=2026-01-05T17:50:00.000000Z",
    ]);
    for (const id of ["evaluation:1", "dataset:p/eval@v1", "dataset:p/extra@v1"]) expect(html).toContain(`href="${link.node(id)}"`);
  });

  it("says when a model version has none", () => {
    expect(plain(renderToString(<EvaluationResults results={[]} />))).toBe("No evaluation recorded.");
  });
});
