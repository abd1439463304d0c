import { describe, expect, it } from "vitest";
import { apiDirection, formatRoute, link, parseRoute, type Route } from "./route";

describe("parseRoute", () => {
  it("reads a lineage link with every argument", () => {
    expect(parseRoute("#/lineage/run%3Aabc?direction=down&depth=3&types=RUN,MODEL_VERSION&asOf=2026-01-02T03:04:05Z")).toEqual({
      page: "lineage",
      id: "run:abc",
      direction: "down",
      depth: 3,
      types: ["RUN", "MODEL_VERSION"],
      asOf: "2026-01-02T03:04:05Z",
    });
  });

  it("defaults lineage to upstream, depth 5, and caps the depth at 20", () => {
    expect(parseRoute("#/lineage/x")).toMatchObject({ direction: "up", depth: 5, types: [], asOf: "" });
    expect(parseRoute("#/lineage/x?depth=99")).toMatchObject({ depth: 20 });
    expect(parseRoute("#/lineage/x?depth=-1&direction=sideways")).toMatchObject({ depth: 5, direction: "up" });
  });

  it("keeps ids with slashes and @ in one segment", () => {
    const id = "model:proj/name@3";
    const hash = formatRoute({ page: "node", id });
    expect(hash).toBe("#/node/model%3Aproj%2Fname%403");
    expect(parseRoute(hash)).toEqual({ page: "node", id });
  });

  it("reads diff with two ids and search with filters", () => {
    expect(parseRoute("#/diff/run%3Aa/run%3Ab")).toEqual({ page: "diff", a: "run:a", b: "run:b" });
    expect(parseRoute("#/search?q=resnet&type=RUN&project=vision")).toEqual({
      page: "search", q: "resnet", type: "RUN", project: "vision",
    });
    expect(parseRoute("")).toEqual({ page: "search", q: "", type: "", project: "" });
  });

  it("reads an id whose / was not encoded (a link typed or pasted by hand)", () => {
    expect(parseRoute("#/lineage/dataset:p/raw@v1?depth=3")).toMatchObject({ page: "lineage", id: "dataset:p/raw@v1", depth: 3 });
    expect(parseRoute("#/node/checkpoint:p-run/1000")).toEqual({ page: "node", id: "checkpoint:p-run/1000" });
    expect(parseRoute("#/diff/model:p/m@1/model:p/m@2")).toEqual({ page: "diff", a: "model:p/m@1", b: "model:p/m@2" });
    expect(parseRoute("#/diff/run:a/model:p/m@2")).toEqual({ page: "diff", a: "run:a", b: "model:p/m@2" });
    // The explorer's own links still round-trip.
    expect(parseRoute(link.node("dataset:p/raw@v1"))).toEqual({ page: "node", id: "dataset:p/raw@v1" });
  });

  it("reads a dossier link, its id encoded or typed by hand", () => {
    expect(parseRoute("#/dossier/model%3Ap%2Fchat-1b%401.0.0")).toEqual({ page: "dossier", id: "model:p/chat-1b@1.0.0" });
    expect(parseRoute("#/dossier/model:p/chat-1b@1.0.0")).toEqual({ page: "dossier", id: "model:p/chat-1b@1.0.0" });
    expect(link.dossier("model:p/m@1")).toBe("#/dossier/model%3Ap%2Fm%401");
    expect(parseRoute("#/dossier")).toEqual({ page: "unknown", hash: "/dossier" });
  });

  it("marks malformed links unknown", () => {
    expect(parseRoute("#/node")).toEqual({ page: "unknown", hash: "/node" });
    expect(parseRoute("#/diff/only-one").page).toBe("unknown");
    expect(parseRoute("#/nowhere/x").page).toBe("unknown");
  });

  it("defaults the digest window to 7d ending now", () => {
    expect(parseRoute("#/digest/vision")).toEqual({ page: "digest", project: "vision", since: "7d", until: "" });
  });

  it("reads the end of a past digest window", () => {
    expect(parseRoute("#/digest/vision?since=7d&until=2026-01-12T00%3A00%3A00Z")).toEqual({
      page: "digest",
      project: "vision",
      since: "7d",
      until: "2026-01-12T00:00:00Z",
    });
  });
});

describe("formatRoute", () => {
  const routes: Route[] = [
    { page: "search", q: "a b", type: "RUN", project: "p" },
    { page: "lineage", id: "dsv:p/x@v2", direction: "both", depth: 7, types: ["RUN"], asOf: "2026-01-01T00:00:00Z" },
    { page: "impact", id: "ckpt:1" },
    { page: "reproduce", id: "model:p/m@1" },
    { page: "dossier", id: "model:p/m@1.0.0" },
    { page: "compare", experiment: "exp:p/3", metric: "final:val/loss" },
    { page: "best", model: "model:p/m", metric: "acc", dataset: "dsv:p/t@1", project: "", higher: true },
    { page: "digest", project: "vision", since: "24h", until: "" },
    { page: "digest", project: "demo llm", since: "7d", until: "2026-01-12T00:00:00+01:00" },
  ];
  for (const route of routes) {
    it(`round-trips ${route.page}`, () => {
      expect(parseRoute(formatRoute(route))).toEqual(route);
    });
  }

  it("omits empty query arguments", () => {
    expect(formatRoute({ page: "search", q: "", type: "", project: "" })).toBe("#/search");
    expect(formatRoute({ page: "digest", project: "vision", since: "7d", until: "" })).toBe("#/digest/vision?since=7d");
  });

  it("writes the end of a digest window", () => {
    expect(formatRoute({ page: "digest", project: "vision", since: "7d", until: "2026-01-12T00:00:00Z" })).toBe(
      "#/digest/vision?since=7d&until=2026-01-12T00%3A00%3A00Z",
    );
  });

  it("maps directions to the API enum", () => {
    expect(apiDirection("up")).toBe("UPSTREAM");
    expect(apiDirection("down")).toBe("DOWNSTREAM");
    expect(apiDirection("both")).toBe("BOTH");
  });
});
