import { describe, expect, it } from "vitest";
import { failedText, meanText, runningText, signed } from "./effects";

describe("effects cells", () => {
  it("signs a change of the metric, and shows none as —", () => {
    expect(signed(-0.08)).toBe("-0.08");
    expect(signed(0.1)).toBe("+0.1");
    expect(signed(0)).toBe("0");
    expect(signed(null)).toBe("—");
    expect(signed(-0.08000000000000007)).toBe("-0.08");
  });

  it("gives the mean with its spread when there is one", () => {
    expect(meanText({ meanDelta: -0.08, spread: 0.0282842712 })).toBe("-0.08 ± 0.0282843");
    expect(meanText({ meanDelta: 0.02, spread: null })).toBe("+0.02");
    expect(meanText({ meanDelta: null, spread: null })).toBe("—");
  });

  it("counts the failed later runs of the pairs with their errors, as the CLI prints them", () => {
    const oom = { error: "OutOfMemoryError", count: 2 };
    expect(failedText({ failed: 2, pairs: 2, failures: [oom] })).toBe("2 of 2: OutOfMemoryError x2");
    expect(failedText({ failed: 2, pairs: 3, failures: [{ error: "NCCLTimeout", count: 1 }, { error: "OutOfMemoryError", count: 1 }] })).toBe(
      "2 of 3: NCCLTimeout, OutOfMemoryError",
    );
    expect(failedText({ failed: 0, pairs: 3, failures: [] })).toBe("—");
  });

  it("shows running later runs, none as —", () => {
    expect(runningText({ running: 1 })).toBe("1");
    expect(runningText({ running: 0 })).toBe("—");
  });
});
