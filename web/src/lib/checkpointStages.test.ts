import { describe, expect, it } from "vitest";
import { countText, savedText, suiteText, valueText } from "./checkpointStages";

describe("checkpoint stages words", () => {
  it("writes a value with its change as the CLI does", () => {
    expect(valueText({ value: 0.55, change: 0.15, previousStep: 1000 })).toBe("0.55 (+0.15 since step 1000)");
    expect(valueText({ value: 0.85, change: -0.05, previousStep: 2000 })).toBe("0.85 (-0.05 since step 2000)");
    expect(valueText({ value: 0.4, change: null, previousStep: null })).toBe("0.4");
    expect(valueText({ value: "B", change: null, previousStep: 1 })).toBe("B");
  });

  it("writes the suite, the saved metrics and the count", () => {
    expect(suiteText({ suite: "demo-eval", suiteVersion: null })).toBe("demo-eval");
    expect(suiteText({ suite: "s", suiteVersion: "1" })).toBe("s@1");
    expect(savedText({ metrics: [{ name: "train/loss", value: 2.9 }] })).toBe("train/loss 2.9");
    expect(savedText({ metrics: [] })).toBe("-");
    expect(countText({ total: 2, truncated: false, checkpoints: [1, 2] })).toBe("2 checkpoints");
    expect(countText({ total: 40, truncated: true, checkpoints: new Array(8) })).toBe("8 of 40 checkpoints");
  });
});
