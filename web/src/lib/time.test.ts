import { describe, expect, it } from "vitest";
import { compactIso, durationSeconds, humanDuration, isoToLocalInput, laterUntil, localInputToIso } from "./time";

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

describe("humanDuration", () => {
  it("says seconds and minutes under an hour", () => {
    expect(humanDuration(0)).toBe("0 s");
    expect(humanDuration(45)).toBe("45 s");
    expect(humanDuration(60)).toBe("1 min");
    expect(humanDuration(59 * 60 + 20)).toBe("59 min");
  });
  it("says hours and minutes under a day", () => {
    expect(humanDuration(2 * 3600)).toBe("2 h");
    expect(humanDuration(5 * 3600 + 20 * 60)).toBe("5 h 20 min");
    expect(humanDuration(23 * 3600 + 59 * 60 + 40)).toBe("1 d"); // rounds up to a whole day
  });
  it("says days and hours under ten days, days from then on", () => {
    expect(humanDuration(3 * 86400 + 4 * 3600)).toBe("3 d 4 h");
    expect(humanDuration(2 * 86400)).toBe("2 d");
    // The demo's stalled run: 474937 minutes.
    expect(humanDuration(474937 * 60)).toBe("330 d");
  });
  it("answers — for what is not a length of time", () => {
    expect(humanDuration(-1)).toBe("—");
    expect(humanDuration(Number.NaN)).toBe("—");
  });
});

describe("digest windows", () => {
  it("reads durations as the API does", () => {
    expect(durationSeconds("7d")).toBe(7 * 86400);
    expect(durationSeconds(" 24h ")).toBe(86400);
    expect(durationSeconds("1.5h")).toBe(5400);
    expect(durationSeconds("2w")).toBe(14 * 86400);
    expect(durationSeconds("0d")).toBeNull();
    expect(durationSeconds("7 days")).toBeNull();
  });
  it("writes ISO times compactly in UTC", () => {
    expect(compactIso("2025-12-30T00:00:00.000000Z")).toBe("2025-12-30T00:00:00Z");
    expect(compactIso("2026-01-12T01:00:00+01:00")).toBe("2026-01-12T00:00:00Z");
    expect(compactIso("2026-01-12T00:00:00.250Z")).toBe("2026-01-12T00:00:00.250Z");
    expect(compactIso("soon")).toBe("soon");
  });
  it("moves a past window on by its length, up to now", () => {
    const now = new Date("2026-02-01T00:00:00Z");
    expect(laterUntil("2026-01-06T00:00:00Z", "7d", now)).toBe("2026-01-13T00:00:00Z");
    expect(laterUntil("2026-01-28T00:00:00Z", "7d", now)).toBe(""); // reaches now: the current window
    expect(laterUntil("", "7d", now)).toBeNull(); // already the current window
    expect(laterUntil("2026-01-06T00:00:00Z", "a week", now)).toBeNull();
  });
});
