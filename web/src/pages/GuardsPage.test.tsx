import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RequestError } from "../api/client";
import type { GuardsAnswer } from "../api/types";
import { link } from "../routes/route";
import { GuardsError, GuardsView } from "./GuardsPage";

const p = "demo-llm";

const answer: GuardsAnswer = {
  lintMetrics: {
    project: p,
    metrics: 4,
    aliases: [{ alias: "validation/loss", canonical: "val/loss" }],
    groups: [
      {
        key: "val/loss",
        canonical: "val/loss",
        settled: false,
        undeclared: ["val_loss"],
        names: [
          { name: "val/loss", records: 2, aliasOf: null },
          { name: "val_loss", records: 1, aliasOf: null },
          { name: "validation/loss", records: 2, aliasOf: "val/loss" },
        ],
      },
    ],
  },
  lintNames: {
    project: p,
    enforced: false,
    rules: 2,
    kinds: [
      {
        kind: "run",
        rule: "{experiment}-r{run_number}",
        checked: 3,
        truncated: false,
        breaks: [{ id: `run:${p}-sft-2`, name: "tmp", problem: "'tmp' does not follow the rule '{experiment}-r{run_number}'", suggestion: "sft-r2" }],
      },
      {
        kind: "model_version",
        rule: "v*",
        checked: 3,
        truncated: true,
        breaks: [{ id: `model:${p}/chat@release-3`, name: "release-3", problem: "'release-3' does not follow the rule 'v*'", suggestion: null }],
      },
      { kind: "image", rule: "img-*", checked: 2, truncated: false, breaks: [] },
    ],
  },
  collisions: {
    project: p,
    storageRoots: ["s3://lake/p"],
    enforced: true,
    checked: 4,
    truncated: false,
    outOfPlace: [
      {
        id: `dataset:${p}/web@v1`,
        kind: "DatasetVersion",
        run: null,
        experiment: null,
        uri: "file:///home/ann/web",
        problem: "file:///home/ann/web is a personal path (a home or temporary directory)",
      },
      {
        id: `model:${p}/chat@v2`,
        kind: "ModelVersion",
        run: `run:${p}-sft-2`,
        experiment: `experiment:${p}/sft`,
        uri: "s3://elsewhere/chat/v2",
        problem: "s3://elsewhere/chat/v2 is outside the project's storage roots (s3://lake/p)",
      },
    ],
    shared: [
      {
        uri: "s3://lake/p/ckpt/shared",
        writers: [
          { id: "checkpoint:a", kind: "Checkpoint", run: `run:${p}-sft-1`, experiment: `experiment:${p}/sft` },
          { id: "checkpoint:b", kind: "Checkpoint", run: `run:${p}-dpo-1`, experiment: null },
        ],
      },
    ],
  },
};

const empty: GuardsAnswer = {
  lintMetrics: { project: p, metrics: 2, aliases: [], groups: [] },
  lintNames: { project: p, enforced: false, rules: 0, kinds: [] },
  collisions: { project: p, storageRoots: [], enforced: false, checked: 1, truncated: false, outOfPlace: [], shared: [] },
};

const textOf = (inner: string) =>
  inner
    .replace(/<[^>]*>/g, "")
    .replace(/&#x27;/g, "'")
    .replace(/&gt;/g, ">")
    .replace(/\s+/g, " ")
    .trim();

/** The text of every `data-col` cell of the HTML, in order. */
function cells(html: string): string[] {
  return [...html.matchAll(/data-col="([^"]+)"[^>]*>(.*?)<\/td>/g)].map((m) => `${m[1]}=${textOf(m[2])}`);
}

/** The HTML of the element opened by the first tag carrying `attr`, up to the end of the section. */
function part(html: string, attr: string): string {
  const at = html.indexOf(attr);
  expect(at).toBeGreaterThanOrEqual(0);
  return html.slice(at, html.indexOf("</section>", at));
}

function testid(html: string, id: string): string | undefined {
  const m = new RegExp(`data-testid="${id}"[^>]*>(.*?)</p>`).exec(html);
  return m ? textOf(m[1]) : undefined;
}

describe("the guards page", () => {
  const html = renderToString(<GuardsView answer={answer} />);

  it("shows each metric group: canonical name, state, spellings, what to declare and the flags that declare it", () => {
    const metrics = part(html, 'data-guard="metrics"');
    expect(testid(metrics, "metrics-summary")).toBe("4 metric names; 1 spelled more ways than one.");
    expect(testid(metrics, "metric-aliases")).toBe("Declared aliases: validation/loss → val/loss.");
    expect(metrics).toContain('data-group="val/loss"');
    expect(cells(metrics)).toEqual([
      "key=val/loss",
      "canonical=val/loss",
      "state=not declared",
      "names=val/loss: 2 recordsval_loss: 1 recordvalidation/loss: 2 records, alias of val/loss",
      "undeclared=val_loss",
    ]);
    expect(testid(metrics, "metrics-declare")).toContain(`Declare the rest with provgraph policy set ${p} --metric-alias val_loss=val/loss`);
    expect(metrics).not.toContain("metrics-none");
  });

  it("shows each naming rule with its breaking records linked to their cards and the suggested names", () => {
    const names = part(html, 'data-guard="names"');
    expect(testid(names, "names-summary")).toBe("2 naming rules, not enforced.");
    expect(cells(names)).toEqual([
      `id=run:${p}-sft-2`,
      "name=tmp",
      "problem='tmp' does not follow the rule '{experiment}-r{run_number}'",
      "suggestion=sft-r2",
      `id=model:${p}/chat@release-3`,
      "name=release-3",
      "problem='release-3' does not follow the rule 'v*'",
      "suggestion=— (the rule builds none)",
    ]);
    expect(names).toContain(`href="${link.node(`run:${p}-sft-2`)}"`);
    expect(names).toContain(`href="${link.node(`model:${p}/chat@release-3`)}"`);
    const heads = [...names.matchAll(/<h4>(.*?)<\/h4>/g)].map((m) => textOf(m[1]));
    expect(heads).toEqual([
      "run {experiment}-r{run_number}: 1 of 3 break it",
      "model version v*: 1 of 3 break it (more not checked)",
      "image img-*: 0 of 2 break it",
    ]);
    expect(names).toContain("Every one follows it.");
  });

  it("shows outputs out of place with their problem, and shared URIs with their writers linked", () => {
    const found = part(html, 'data-guard="collisions"');
    expect(testid(found, "collisions-summary")).toBe("4 outputs checked; storage roots: s3://lake/p (refused at ingest).");
    const outOfPlace = found.slice(0, found.indexOf("data-shared"));
    expect(cells(outOfPlace)).toEqual([
      `id=dataset:${p}/web@v1`,
      "kind=DatasetVersion",
      "problem=file:///home/ann/web is a personal path (a home or temporary directory)",
      "run=—",
      "experiment=—",
      `id=model:${p}/chat@v2`,
      "kind=ModelVersion",
      "problem=s3://elsewhere/chat/v2 is outside the project's storage roots (s3://lake/p)",
      `run=run:${p}-sft-2`,
      `experiment=experiment:${p}/sft`,
    ]);
    const shared = found.slice(found.indexOf("data-shared"));
    expect(shared).toContain('data-shared="s3://lake/p/ckpt/shared"');
    expect(cells(shared)).toEqual([
      "id=checkpoint:a",
      "kind=Checkpoint",
      `run=run:${p}-sft-1`,
      `experiment=experiment:${p}/sft`,
      "id=checkpoint:b",
      "kind=Checkpoint",
      `run=run:${p}-dpo-1`,
      "experiment=—",
    ]);
    for (const id of ["checkpoint:a", "checkpoint:b", `run:${p}-sft-1`, `run:${p}-dpo-1`, `experiment:${p}/sft`]) {
      expect(shared).toContain(`href="${link.node(id)}"`);
    }
    expect(found).not.toContain("Truncated");
  });

  it("says so when nothing breaks a convention, or none is declared", () => {
    const none = renderToString(<GuardsView answer={empty} />);
    expect(testid(none, "metrics-none")).toBe("Every metric name is spelled one way.");
    expect(testid(none, "metric-aliases")).toBe("No metric alias declared.");
    expect(none).not.toContain("metrics-declare");
    expect(testid(none, "names-none")).toBe(`No naming rule declared (provgraph policy set ${p} --name-rule KIND=TEMPLATE).`);
    expect(testid(none, "out-of-place-none")).toBe("Nothing out of place.");
    expect(testid(none, "shared-none")).toBe("No URI written by more than one job.");
    expect(testid(none, "collisions-summary")).toBe("1 output checked; storage roots: none declared (not enforced).");
    expect(none).not.toContain("data-group");
    expect(none).not.toContain("data-kind");
  });

  it("says when the outputs checked were cut short", () => {
    const cut = renderToString(<GuardsView answer={{ ...empty, collisions: { ...empty.collisions, checked: 500, truncated: true } }} />);
    expect(textOf(cut)).toContain("⚠ Truncated: only the first 500 outputs (by URI) were checked.");
  });

  it("shows an unknown project as the API words it, and says what it means", () => {
    const notFound = renderToString(<GuardsError error={new RequestError("project 'nope' not found (or not readable)", 200, [{ message: "project 'nope' not found (or not readable)", extensions: { code: "not_found" } }])} project="nope" />);
    expect(textOf(notFound)).toContain("Error (not_found): project 'nope' not found (or not readable)");
    expect(testid(notFound, "guards-not-found")).toBe("No project nope, or you may not read it. Search for a project.");
    const other = renderToString(<GuardsError error={new RequestError("the service is down", 503)} project="p" />);
    expect(other).toContain("the service is down");
    expect(other).not.toContain("guards-not-found");
  });
});
