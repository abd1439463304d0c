import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { CostAnswer, RunCost } from "../api/types";
import { link } from "../routes/route";
import { CostPage, CostView, GainView } from "./CostPage";

const run = (id: string, extra: Partial<RunCost> = {}): RunCost => ({
  id,
  name: null,
  status: "completed",
  role: "completed",
  hours: 1,
  accelerators: 8,
  acceleratorHours: 8,
  interruptions: 0,
  lostHours: 0,
  lostAcceleratorHours: 0,
  checkpointBytes: 0,
  checkpointsWithoutSize: 0,
  checkpointsCapped: false,
  ...extra,
});

/** The story of docs/practices.md: a producing run, a failed attempt, a base shared by three runs. */
const model: CostAnswer = {
  target: "model:p/chat@1.0.0",
  kind: "model_version",
  run: "run:p-sft-2",
  experiment: "experiment:p/sft",
  truncated: false,
  runs: [
    run("run:p-sft-2", { name: "sft-2", role: "producing run", hours: 2, acceleratorHours: 16, checkpointBytes: 1_000_000_000 }),
    run("run:p-sft-1", {
      status: "failed",
      role: "failed attempt",
      interruptions: 1,
      lostHours: 0.5,
      lostAcceleratorHours: 4,
      checkpointBytes: 2_000_000_000,
    }),
  ],
  totals: {
    hours: 3,
    acceleratorHours: 24,
    lostHours: 0.5,
    lostAcceleratorHours: 4,
    checkpointBytes: 3_000_000_000,
    runsWithoutResources: [],
    byRole: [
      { role: "producing run", runs: 1, hours: 2, acceleratorHours: 16 },
      { role: "failed attempt", runs: 1, hours: 1, acceleratorHours: 8 },
    ],
  },
  base: null,
  withBase: null,
  gain: null,
};

const withBase: CostAnswer = {
  ...model,
  base: {
    modelVersion: "model:p/base@1.0.0",
    run: "run:p-pretrain",
    hours: 10,
    acceleratorHours: 160,
    users: 3,
    share: 0.333333,
    shareHours: 3.3333,
    shareAcceleratorHours: 53.3333,
    runsWithoutResources: [],
  },
  withBase: { hours: 6.3333, acceleratorHours: 77.3333 },
};

const experiment: CostAnswer = {
  target: "experiment:p/sft",
  kind: "experiment",
  run: null,
  experiment: "experiment:p/sft",
  truncated: true,
  runs: [
    run("run:p-sft-3", { status: "aborted", role: "failed attempt", accelerators: null, acceleratorHours: null, lostAcceleratorHours: null, hours: 0.25 }),
    ...model.runs.map((r) => ({ ...r, role: r.status === "failed" ? "failed attempt" : "completed" })),
  ],
  totals: {
    ...model.totals,
    hours: 3.25,
    runsWithoutResources: ["run:p-sft-3"],
    byRole: [
      { role: "completed", runs: 1, hours: 2, acceleratorHours: 16 },
      { role: "failed attempt", runs: 2, hours: 1.25, acceleratorHours: 8 },
    ],
  },
  base: null,
  withBase: null,
  gain: null,
};

const plain = (inner: string) =>
  inner
    .replace(/<[^>]*>/g, "")
    .replace(/&#x27;|&apos;/g, "'")
    .replace(/\s+/g, " ")
    .trim();

/** The text of every `data-col` cell of the HTML, in order (spaces as one, trimmed). */
function cells(html: string): string[] {
  return [...html.matchAll(/data-col="([^"]+)"[^>]*>(.*?)<\/t[dh]>/g)].map((m) => `${m[1]}=${plain(m[2])}`);
}

/** The text of the element with `data-testid="<id>"`, or null. */
function testid(html: string, id: string): string | null {
  const found = new RegExp(`data-testid="${id}"[^>]*>(.*?)</p>`).exec(html);
  return found ? plain(found[1]) : null;
}

/** The part of the HTML from the table `data-testid="<id>"` to its end. */
function table(html: string, id: string): string {
  const start = html.indexOf(`data-testid="${id}"`);
  return start < 0 ? "" : html.slice(start, html.indexOf("</table>", start));
}

describe("the cost answer", () => {
  it("has a row per run with the CLI's columns, the sums by role, the work lost and the storage", () => {
    const html = renderToString(<CostView answer={model} base={false} />);
    expect(cells(table(html, "cost-runs"))).toEqual([
      "run=run:p-sft-2",
      "name=sft-2",
      "status=completed",
      "role=producing run",
      "hours=2",
      "accelerators=8",
      "acceleratorHours=16",
      "interruptions=0",
      "lostAcceleratorHours=0",
      "checkpoints=1 GB",
      "run=run:p-sft-1",
      "name=—",
      "status=failed",
      "role=failed attempt",
      "hours=1",
      "accelerators=8",
      "acceleratorHours=8",
      "interruptions=1",
      "lostAcceleratorHours=4",
      "checkpoints=2 GB",
    ]);
    expect(html).toContain('data-run="run:p-sft-1" data-role="failed attempt"');
    expect(cells(table(html, "cost-roles"))).toEqual([
      "role=producing run",
      "runs=1",
      "hours=2",
      "acceleratorHours=16",
      "role=failed attempt",
      "runs=1",
      "hours=1",
      "acceleratorHours=8",
      "role=total",
      "runs=2",
      "hours=3",
      "acceleratorHours=24",
    ]);
    expect(testid(html, "cost-acceleratorHours")).toBe("accelerator-hours: 24: producing run 16 (1 run), failed attempt 8 (1 run)");
    expect(testid(html, "cost-lost")).toBe("lost to interruptions: 4 accelerator-hours (0.5 hours)");
    expect(testid(html, "cost-storage")).toBe("checkpoint storage: 3 GB");
    expect(testid(html, "cost-origin")).toBe(
      "Made by run:p-sft-2 of experiment:p/sft: its producing run, and the failed attempts of its experiment that started before it ended.",
    );
    for (const id of ["run:p-sft-2", "run:p-sft-1", "experiment:p/sft"]) expect(html).toContain(`href="${link.node(id)}"`);
    for (const absent of ["cost-base", "cost-no-base", "cost-without-resources", "Truncated"]) expect(html).not.toContain(absent);
  });

  it("adds the base's share: its line as the CLI prints it, and the sums with it", () => {
    const html = renderToString(<CostView answer={withBase} base />);
    expect(testid(html, "cost-base")).toBe(
      "base model:p/base@1.0.0: 160 accelerator-hours (10 hours), shared by 3 runs: 53.3333; with it: 77.3333 accelerator-hours",
    );
    expect(testid(html, "cost-base-origin")).toBe("The base was made by run:p-pretrain; 3 runs started from it, each carrying 0.333333 of its cost.");
    expect(html).toContain(`href="${link.node("model:p/base@1.0.0")}"`);
    expect(cells(table(html, "cost-roles")).slice(-8)).toEqual([
      "role=base's share",
      "runs=—",
      "hours=3.3333",
      "acceleratorHours=53.3333",
      "role=with the base's share",
      "runs=—",
      "hours=6.3333",
      "acceleratorHours=77.3333",
    ]);
  });

  it("says when a model version asked with its base started from none", () => {
    const html = renderToString(<CostView answer={model} base />);
    expect(testid(html, "cost-no-base")).toBe("This model version started from no other: there is no base to share.");
    expect(html).not.toContain('data-testid="cost-base"');
  });

  it("lists an experiment's runs by outcome, those without resources in hours only, and says when it was truncated", () => {
    const html = renderToString(<CostView answer={experiment} base={false} />);
    expect([...html.matchAll(/data-run="([^"]+)" data-role="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual([
      "run:p-sft-3 failed attempt",
      "run:p-sft-2 completed",
      "run:p-sft-1 failed attempt",
    ]);
    expect(cells(table(html, "cost-runs")).slice(0, 10)).toEqual([
      "run=run:p-sft-3",
      "name=—",
      "status=aborted",
      "role=failed attempt",
      "hours=0.25",
      "accelerators=—",
      "acceleratorHours=—",
      "interruptions=0",
      "lostAcceleratorHours=—",
      "checkpoints=—",
    ]);
    expect(testid(html, "cost-without-resources")).toBe("without recorded resources (hours only): run:p-sft-3");
    expect(testid(html, "cost-origin")).toBe("The experiment's runs, by outcome: completed, failed attempts, running.");
    expect(testid(html, "cost-acceleratorHours")).toBe("accelerator-hours: 24: completed 16 (1 run), failed attempt 8 (2 runs)");
    expect(html).toContain("Truncated: the experiment");
  });

  it("says when no run is recorded", () => {
    const html = renderToString(
      <CostView answer={{ ...model, run: null, runs: [], totals: { ...model.totals, byRole: [], hours: 0, acceleratorHours: 0 } }} base={false} />,
    );
    expect(html).toContain("No run recorded.");
    expect(html).not.toContain('data-testid="cost-runs"');
    expect(testid(html, "cost-origin")).toBe("No recorded run made this model version.");
    expect(testid(html, "cost-acceleratorHours")).toBe("accelerator-hours: 0");
  });
});

describe("the cost page", () => {
  it("offers the base's share for a model version, checked as the route says", () => {
    const off = renderToString(<CostPage route={{ page: "cost", id: "model:p/chat@1.0.0", base: false, metric: "", datasets: [], suite: "", higher: false }} />);
    expect(off).toMatch(/id="cost-base" type="checkbox"\/>/);
    const on = renderToString(<CostPage route={{ page: "cost", id: "model:p/chat@1.0.0", base: true, metric: "", datasets: [], suite: "", higher: false }} />);
    expect(on).toMatch(/id="cost-base" type="checkbox" checked=""/);
  });

  it("offers no base's share for an experiment", () => {
    const html = renderToString(<CostPage route={{ page: "cost", id: "experiment:p/sft", base: false, metric: "", datasets: [], suite: "", higher: false }} />);
    expect(html).not.toContain('id="cost-base"');
    expect(html).not.toContain('id="cost-metric"');
    expect(html).toContain(`href="${link.node("experiment:p/sft")}"`);
  });

  it("asks a model version's gain with the route's metric, evaluation set and direction in the form", () => {
    const html = renderToString(
      <CostPage route={{ page: "cost", id: "model:p/chat@1.0.0", base: false, metric: "acc", datasets: ["dataset:p/e@v1", "dataset:p/f@v1"], suite: "s", higher: true }} />,
    );
    expect(html).toMatch(/id="cost-metric"[^>]*value="acc"/);
    expect(html).toMatch(/id="cost-datasets"[^>]*value="dataset:p\/e@v1, dataset:p\/f@v1"/);
    expect(html).toMatch(/id="cost-suite"[^>]*value="s"/);
    expect(html).toMatch(/id="cost-higher" type="checkbox" checked=""/);
  });
});

describe("the gain per point", () => {
  const gain = {
    metric: "acc",
    higherIsBetter: true,
    evaluationSet: { datasets: ["dataset:p/eval@v1"], suite: "demo-eval", suiteVersion: null },
    value: 0.66,
    previousBest: { version: "model:p/chat@1.0.0", value: 0.61 },
    gain: 0.05,
    acceleratorHoursPerPoint: 2.9867,
    message: null,
  };

  it("shows the gain line as the CLI prints it, the previous best linked, and the figures", () => {
    const html = renderToString(<GainView gain={gain} />);
    expect(testid(html, "cost-gain")).toBe(
      "gain on acc (dataset:p/eval@v1 [demo-eval]): 0.66 against 0.61 (model:p/chat@1.0.0), 5 points, 2.9867 accelerator-hours a point",
    );
    expect(html).toContain(`href="${link.node("model:p/chat@1.0.0")}"`);
    expect(html).toMatch(/data-field="acceleratorHoursPerPoint">2.9867</);
  });

  it("says why there is no figure", () => {
    const first = { ...gain, previousBest: null, gain: null, acceleratorHoursPerPoint: null, message: "the first version evaluated on this set: no earlier best to gain over" };
    expect(testid(renderToString(<GainView gain={first} />), "cost-gain")).toBe(
      "gain on acc (dataset:p/eval@v1 [demo-eval]): the first version evaluated on this set: no earlier best to gain over",
    );
    const worse = { ...gain, value: 0.6, gain: -0.01, acceleratorHoursPerPoint: null, message: "no gain over the previous best" };
    expect(testid(renderToString(<GainView gain={worse} />), "cost-gain")).toBe(
      "gain on acc (dataset:p/eval@v1 [demo-eval]): 0.6 against 0.61 (model:p/chat@1.0.0), -1 points: no gain over the previous best",
    );
    const ambiguous = { ...gain, evaluationSet: null, value: null, previousBest: null, gain: null, acceleratorHoursPerPoint: null, message: "'acc' was recorded on several evaluation sets" };
    expect(testid(renderToString(<GainView gain={ambiguous} />), "cost-gain")).toBe("gain on acc: 'acc' was recorded on several evaluation sets");
  });
});
