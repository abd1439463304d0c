import { describe, expect, it } from "vitest";
import { isoToLocalInput, localInputToIso } from "./time";

describe("as-of conversion", () => {
  it("round-trips a time through the local input value", () => {
    const iso = "2026-03-04T05:06:00Z";
    expect(localInputToIso(isoToLocalInput(iso))).toBe(iso);
  });
  it("answers '' for empty or unreadable values", () => {
    expect(isoToLocalInput("")).toBe("");
    expect(isoToLocalInput("not a time")).toBe("");
    expect(localInputToIso("")).toBe("");
  });
});
