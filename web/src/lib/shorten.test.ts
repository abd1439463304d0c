import { describe, expect, it } from "vitest";
import { digestSegments, isShortened, shownText, wrapPieces } from "./shorten";

const HEX = "ab".repeat(32); // a sha256 digest's 64 hex digits
const IMAGE = `registry.example.org/ml/trainer:2026.01@sha256:${HEX}`;

const joined = (value: string) =>
  digestSegments(value)
    .map((s) => s.shown + s.hidden)
    .join("");

describe("digestSegments", () => {
  it("keeps an image's name and tag, and the digest's algorithm and first 12 hex digits in view", () => {
    const segments = digestSegments(IMAGE);
    expect(segments).toEqual([{ shown: "registry.example.org/ml/trainer:2026.01@sha256:abababababab", hidden: HEX.slice(12) }]);
    expect(shownText(segments)).toBe("registry.example.org/ml/trainer:2026.01@sha256:abababababab…");
    expect(isShortened(segments)).toBe(true);
  });
  it("gives the whole value back, joined", () => {
    for (const value of [IMAGE, `sha256:${HEX}`, `at s3://x/; checksum sha256:${HEX}; md5:${"0f".repeat(16)} end`, "plain", ""]) {
      expect(joined(value)).toBe(value);
    }
  });
  it("shortens every digest of a value, a bare one too", () => {
    const segments = digestSegments(`a sha512:${"c".repeat(128)} b ${"d".repeat(40)} c`);
    expect(shownText(segments)).toBe(`a sha512:${"c".repeat(12)}… b ${"d".repeat(12)}… c`);
  });
  it("leaves short hex, words and ids alone", () => {
    for (const value of ["9b1d0e2", "sha256:ff", "run:demo-sft-002", "environment:demo-llm/trainer-2026-01", `x${HEX}`, `${HEX}g`]) {
      const segments = digestSegments(value);
      expect(isShortened(segments)).toBe(false);
      expect(shownText(segments)).toBe(value);
    }
  });
  it("keeps as many hex digits as asked", () => {
    expect(shownText(digestSegments(`sha256:${HEX}`, 4))).toBe("sha256:abab…");
  });
});

describe("wrapPieces", () => {
  it("cuts after each run of / or @, and joins back to the text", () => {
    expect(wrapPieces(IMAGE)).toEqual(["registry.example.org/", "ml/", "trainer:2026.01@", `sha256:${HEX}`]);
    expect(wrapPieces("https://git.example.org/ml/trainer")).toEqual(["https://", "git.example.org/", "ml/", "trainer"]);
    expect(wrapPieces("dataset:demo-llm/instruct@v1-clean")).toEqual(["dataset:demo-llm/", "instruct@", "v1-clean"]);
    expect(wrapPieces("a/")).toEqual(["a/"]);
    expect(wrapPieces("plain")).toEqual(["plain"]);
    expect(wrapPieces("")).toEqual([]);
  });
});
