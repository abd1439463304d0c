import { renderToString } from "react-dom/server";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { Json } from "../api/types";
import { VersionSteps } from "../components/VersionSteps";
import { factText, stepHead, versionSteps } from "./versionSteps";

const diff: Json = {
  inputs: { train: { added: ["dataset:p/web@v2"], removed: ["dataset:p/web@v1"] } },
  dataset_versions: [
    {
      role: "train",
      dataset: "dataset:p/web",
      a: "dataset:p/web@v1",
      b: "dataset:p/web@v2",
      readable: { a: true, b: true },
      facts: [
        { name: "change_note", a: null, b: "stricter dedup", changed: true },
        {
          name: "cleaning_rules",
          a: [{ kind: "dedup", name: "minhash", params: { threshold: 0.9 } }],
          b: [{ kind: "dedup", name: "minhash", params: { threshold: 0.8 } }, { kind: "normalize", name: "nfc", params: {} }],
          changed: true,
        },
        { name: "split", a: { train: { ratio: 0.9 }, test: { ratio: 0.1 } }, b: { train: { ratio: 0.9 }, test: { ratio: 0.1 } }, changed: false },
        { name: "mix", a: null, b: [{ dataset_version: "dataset:p/raw@v1", transform: "filter", weight: 0.7 }, { dataset_version: "dataset:p/x@v1", transform: null, weight: null }], changed: true },
        { name: "record_count", a: 1000, b: 900, changed: true },
      ],
      changed: ["change_note", "cleaning_rules", "mix", "record_count"],
    },
  ],
};

describe("dataset version steps", () => {
  it("reads the steps of a diff answer, none without them", () => {
    const [step] = versionSteps(diff);
    expect(step.dataset).toBe("dataset:p/web");
    expect(step.facts.map((f) => [f.name, f.changed])).toEqual([
      ["change_note", true],
      ["cleaning_rules", true],
      ["split", false],
      ["mix", true],
      ["record_count", true],
    ]);
    expect(versionSteps({ inputs: {} })).toEqual([]);
  });

  it("writes each side as provgraph diff does", () => {
    const [step] = versionSteps(diff);
    const shown = step.facts.map((f) => [factText(f.a), factText(f.b)]);
    expect(shown).toEqual([
      ["-", "stricter dedup"],
      ['dedup minhash {"threshold": 0.9}', 'dedup minhash {"threshold": 0.8}; normalize nfc'],
      ['{"test": {"ratio": 0.1}, "train": {"ratio": 0.9}}', '{"test": {"ratio": 0.1}, "train": {"ratio": 0.9}}'],
      ["-", "dataset:p/raw@v1 x0.7 (filter); dataset:p/x@v1"],
      ["1000", "900"],
    ]);
    expect(stepHead(step)).toBe("dataset dataset:p/web (train): dataset:p/web@v1 -> dataset:p/web@v2: change_note, cleaning_rules, mix, record_count");
    expect(stepHead({ ...step, changed: [] })).toMatch(/: nothing recorded differs$/);
  });

  it("shows the facts side by side, those that differ marked", () => {
    const html = renderToString(createElement(VersionSteps, { steps: versionSteps(diff) }));
    expect(html).toContain('data-fact="split" data-changed="false"');
    expect(html).toContain('data-fact="record_count" data-changed="true" class="diff-changed"');
    expect([...html.matchAll(/data-col="change">([^<]*)</g)].map((m) => m[1])).toEqual(["≠ changed", "≠ changed", "", "≠ changed", "≠ changed"]);
    expect(renderToString(createElement(VersionSteps, { steps: [] }))).toBe("");
  });
});
