import { describe, expect, it } from "vitest";
import { metricCurves } from "./curves";
import { changeMarker, diffChain, diffRows } from "./diff";
import { readQualityGates, verdictText } from "./gates";
import { decoded, flatten, text } from "./json";
import { baseLabel, recipeGaps, recipeSteps } from "./recipe";

describe("json helpers", () => {
  it("decodes JSON text of maps and flattens nested params", () => {
    expect(decoded('{"a": 1}')).toEqual({ a: 1 });
    expect(decoded("plain")).toBe("plain");
    expect(flatten('{"optim": {"lr": 0.1, "betas": [1, 2]}, "seed": 3}')).toEqual({ "optim.lr": 0.1, "optim.betas": [1, 2], seed: 3 });
    expect(text(0.123456789)).toBe("0.123457");
    expect(text(null)).toBe("—");
  });
});

describe("readQualityGates", () => {
  it("reads the contract's shape: each check a gate, the rest measurements, empty maps left out", () => {
    const recorded = { checks: [{ name: "no-empty", passed: true }, { name: "toxicity", passed: false, value: 0.2 }], dedup_rate: 0.12, mix_ratio: {} };
    expect(readQualityGates(recorded)).toEqual({
      gates: [
        { name: "no-empty", passed: true, detail: "" },
        { name: "toxicity", passed: false, detail: "value: 0.2" },
      ],
      measures: [{ name: "dedup_rate", value: "0.12" }],
    });
    // As the API may send it: JSON text.
    expect(readQualityGates(JSON.stringify(recorded))).toEqual(readQualityGates(recorded));
  });
  it("shows a recorded mix ratio as a measurement", () => {
    expect(readQualityGates({ mix_ratio: { web: 0.9, code: 0.1 } }).measures).toEqual([{ name: "mix_ratio", value: "web 0.9, code 0.1" }]);
  });
  it("reads lists of gate records", () => {
    expect(readQualityGates([{ name: "no_nulls", passed: true }, { name: "dupes", status: "failed", ratio: 0.2 }])).toEqual({
      gates: [
        { name: "no_nulls", passed: true, detail: "" },
        { name: "dupes", passed: false, detail: "ratio: 0.2" },
      ],
      measures: [],
    });
  });
  it("reads maps of verdicts, as objects or JSON text", () => {
    expect(readQualityGates('{"schema": true, "size": {"passed": false, "min": 10}, "lint": "ok", "note": null}').gates).toEqual([
      { name: "schema", passed: true, detail: "" },
      { name: "size", passed: false, detail: "min: 10" },
      { name: "lint", passed: true, detail: "" },
    ]);
  });
  it("names unnamed checks by their list and place", () => {
    expect(readQualityGates({ checks: [{ passed: false }] }).gates).toEqual([{ name: "checks 1", passed: false, detail: "" }]);
  });
  it("records nothing for nothing", () => {
    expect(readQualityGates(null)).toEqual({ gates: [], measures: [] });
    expect(readQualityGates({ checks: [], mix_ratio: {}, dedup_rate: null })).toEqual({ gates: [], measures: [] });
  });
  it("gives every verdict a text and an icon", () => {
    expect(verdictText(true)).toEqual({ icon: "✔", label: "pass" });
    expect(verdictText(false)).toEqual({ icon: "✘", label: "fail" });
    expect(verdictText(null).label).toBe("unknown");
  });
});

describe("metricCurves", () => {
  it("overlays the metrics of checkpoints by step, sorted, skipping non-numbers", () => {
    const { points, metrics } = metricCurves([
      { step: 200, metrics: { loss: 0.5, acc: 0.8 } },
      { step: 100, metrics: '{"loss": 0.9, "note": "x"}' },
      { step: null, metrics: { loss: 1 } },
      { step: 300, metrics: null },
    ]);
    expect(metrics).toEqual(["acc", "loss"]);
    expect(points).toEqual([{ step: 100, loss: 0.9 }, { step: 200, loss: 0.5, acc: 0.8 }]);
  });
});

const diffAnswer = {
  a: "run:1",
  b: "run:2",
  params: { added: { dropout: 0.1 }, removed: {}, changed: { lr: { a: 0.1, b: 0.01 } } },
  inputs: { train: { added: ["dsv:b"], removed: ["dsv:a"] } },
  environment: { a: "env:1", b: "env:1", image: { a: "img:1", b: "img:2" }, packages: { added: {}, removed: { numpy: "1.0" }, changed: {} }, changed: true },
  code: { a: { commit: "abc" }, b: { commit: "abc" }, changed: false },
  base: { started_from: { a: null, b: "model:x" }, resumed_from: { a: [], b: [] }, changed: true },
  metrics: { loss: { a: 0.5, b: 0.4, delta: -0.1 } },
  chain: [{ level: 0, a: "run:1", b: "run:2", differs: true, aspects: ["params"], summary: "params differ" }],
};

describe("diffRows", () => {
  const rows = diffRows(diffAnswer);
  const find = (section: string, name: string) => rows.find((r) => r.section === section && r.name === name);

  it("marks params added and changed", () => {
    expect(find("params", "lr")).toMatchObject({ a: "0.1", b: "0.01", change: "changed" });
    expect(find("params", "dropout")).toMatchObject({ a: "—", b: "0.1", change: "added" });
  });
  it("marks inputs, packages and the base", () => {
    expect(rows.filter((r) => r.section === "inputs").map((r) => r.change)).toEqual(["removed", "added"]);
    expect(find("packages", "numpy")).toMatchObject({ change: "removed" });
    expect(find("environment", "snapshot")?.change).toBe("same");
    expect(find("environment", "image")?.change).toBe("changed");
    expect(find("base", "started from")).toMatchObject({ a: "—", b: "model:x", change: "added" });
    expect(find("code", "commit")?.change).toBe("same");
  });
  it("shows each resource that differs, and none when the answer has no resources", () => {
    const rows = diffRows({ resources: { added: { "parallelism.data": 32 }, removed: {}, changed: { num_nodes: { a: 1, b: 4 } } } });
    expect(rows.map((r) => [r.section, r.name, r.a, r.b, r.change])).toEqual([
      ["resources", "num_nodes", "1", "4", "changed"],
      ["resources", "parallelism.data", "—", "32", "added"],
    ]);
    expect(diffRows(diffAnswer).filter((r) => r.section === "resources")).toEqual([]);
  });
  it("does not highlight what the answer says did not change", () => {
    const rows = diffRows({
      a: "model:p/m@1",
      b: "model:p/m@2",
      runs: { a: "run:x", b: "run:y" },
      environment: { a: "env:1", b: "env:2", image: { a: "img:1", b: "img:1" }, packages: { added: {}, removed: {}, changed: {} }, changed: false },
      base: { started_from: { a: "model:b", b: "model:b" }, resumed_from: { a: [], b: ["checkpoint:y/100"] }, changed: false },
    });
    const find = (section: string, name: string) => rows.find((r) => r.section === section && r.name === name);
    expect(find("environment", "snapshot")).toMatchObject({ a: "env:1", b: "env:2", change: "same", note: expect.stringMatching(/not a change/) });
    expect(find("base", "resumed from")).toMatchObject({ a: "—", b: "checkpoint:y/100", change: "same", note: expect.stringMatching(/own checkpoint/) });
  });
  it("shows every recorded element of the environment that changed", () => {
    const rows = diffRows({
      environment: {
        a: "env:1",
        b: "env:2",
        image: { a: "img:1", b: "img:1" },
        packages: { added: {}, removed: {}, changed: {} },
        changes: [
          { section: "parallel_libs", name: "nccl", change: "changed", a: "2.18.1", b: "2.21.5" },
          { section: "system", name: "numa", change: "added", a: null, b: "on" },
          { section: "driver_version", name: "driver_version", change: "changed", a: "535.104", b: "550.54" },
        ],
        changed: true,
      },
    });
    const env = rows.filter((r) => r.section === "environment").map((r) => [r.name, r.a, r.b, r.change]);
    expect(env).toEqual([
      ["snapshot", "env:1", "env:2", "changed"],
      ["image", "img:1", "img:1", "same"],
      ["parallel_libs.nccl", "2.18.1", "2.21.5", "changed"],
      ["system.numa", "—", "on", "added"],
      ["driver_version", "535.104", "550.54", "changed"],
    ]);
  });
  it("highlights a resume from another run's checkpoint", () => {
    const rows = diffRows({
      runs: { a: "run:x", b: "run:y" },
      base: { started_from: { a: null, b: null }, resumed_from: { a: [], b: ["checkpoint:x/100"] }, changed: true },
    });
    expect(rows.find((r) => r.name === "resumed from")).toMatchObject({ change: "added", b: "checkpoint:x/100" });
  });
  it("notes metric deltas", () => {
    expect(find("metrics", "loss")).toMatchObject({ change: "changed", note: "Δ -0.1" });
  });
  it("gives each change a text marker", () => {
    expect(changeMarker("changed")).toMatch(/changed/);
    expect(changeMarker("added")).toMatch(/added/);
    expect(changeMarker("same")).toBe("");
  });
  it("reads the chain levels", () => {
    expect(diffChain(diffAnswer)).toEqual([{ level: 0, a: "run:1", b: "run:2", differs: true, summary: "params differ" }]);
  });
});

describe("recipeSteps", () => {
  const recipe = {
    target: { type: "ModelVersion", id: "model:p/m@1", checksum: "sha256:ff" },
    exported_from: { id: "ckpt:9", step: 900, uri: "s3://c/9", checksum: "sha256:aa", status: "available", placeholder: false },
    run: {
      id: "run:1",
      name: "train",
      params: { lr: 0.1, optim: { name: "adam" } },
      code: { repo: "git@x:y", commit: "abc123", dirty: true },
      resources: null,
      environment: { id: "env:1", image_ref: "img:1@sha256:00", python_version: "3.11", packages: { torch: "2.1" } },
      inputs: [
        { role: "train", id: "dsv:p/d@v2", name: "d", version: "v2", storage_uri: "s3://d/v2", checksum: "c2", cleaning_rules: [{ name: "dedupe" }],
          derived_from: [{ transform: "clean", id: "dsv:p/raw@v1", name: "raw", version: "v1", derived_from: [] }] },
      ],
      resumed_from: [{ id: "ckpt:5", step: 500, uri: "s3://c/5", run: "run:1" }],
      base: null,
    },
    datasets: ["dsv:p/d@v2", "dsv:p/raw@v1"],
    gaps: [{ at: "run:1", issue: "no code commit recorded" }],
  };
  const steps = recipeSteps(recipe);

  it("lists code, image, packages, data (with its derivation), params, resumes, export, verify", () => {
    expect(steps.map((s) => s.title)).toEqual([
      "Code of train",
      "Environment image",
      "Packages (1)",
      "Data — train: d v2",
      "  Data — derived by clean from raw v1",
      "Parameters (2)",
      "Resume from checkpoint at step 500",
      "Export the checkpoint at step 900",
      "Verify the result's checksum",
    ]);
  });
  it("says what each step is about", () => {
    expect(steps.map((s) => s.kind)).toEqual(["code", "image", "packages", "data", "data", "params", "resume", "export", "verify"]);
  });
  it("gives copyable commands and warns about a dirty tree", () => {
    expect(steps[0].copy).toBe("git checkout abc123");
    expect(steps[0].detail).toMatch(/DIRTY/);
    expect(steps[2].copy).toBe("pip install torch==2.1");
    expect(steps[3].copy).toBe("s3://d/v2");
    expect(steps[3].detail).toMatch(/cleaning: dedupe/);
  });
  it("reads the gaps", () => {
    expect(recipeGaps(recipe)).toEqual([{ at: "run:1", issue: "no code commit recorded" }]);
  });
  it("names the base by its type's label and its name and version, as the other steps name things", () => {
    const based = recipeSteps({
      target: { id: "model:p/chat@2" },
      run: { ...recipe.run, base: { type: "ModelVersion", id: "model:p/base-1b@1.0.0", name: "base-1b", version: "1.0.0", run: null } },
    });
    expect(based[0]).toMatchObject({ kind: "base", title: "Start from model version base-1b 1.0.0", id: "model:p/base-1b@1.0.0", copy: "model:p/base-1b@1.0.0" });
    expect(baseLabel({ type: "Checkpoint", id: "checkpoint:r/300", step: 300 })).toBe("checkpoint at step 300");
    expect(baseLabel({ id: "model:p/x@1" })).toBe("base model:p/x@1");
  });
});
