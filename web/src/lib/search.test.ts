import { describe, expect, it } from "vitest";
import type { NodeSummary } from "../api/types";
import { mergeHits, typeName, whoisVariables } from "./search";

const n = (id: string, type: string, project = "p"): NodeSummary => ({
  id, type, project, firstSeenAt: null, lastEventAt: null, deletedAt: null, placeholder: false,
});

describe("whoisVariables", () => {
  it("asks by URI for URIs and paths", () => {
    expect(whoisVariables(" s3://bucket/x.parquet ", "")).toMatchObject({ text: "s3://bucket/x.parquet", byUri: true, byChecksum: false, uri: "s3://bucket/x.parquet" });
    expect(whoisVariables("/data/x", "").byUri).toBe(true);
  });
  it("asks by checksum for long hex, with or without an algorithm", () => {
    expect(whoisVariables("sha256:0123456789abcdef0123", "")).toMatchObject({ byChecksum: true, byUri: false });
    expect(whoisVariables("resnet", "RUN")).toMatchObject({ byChecksum: false, byUri: false, types: ["RUN"] });
  });
  it("passes the chosen project to the search, none when all projects are chosen", () => {
    expect(whoisVariables("resnet", "RUN", "vision").project).toBe("vision");
    expect(whoisVariables("resnet", "", "").project).toBeNull();
    expect(whoisVariables("resnet", "").project).toBeNull();
  });
  it("asks by exact id only for an id-looking text", () => {
    expect(whoisVariables("dataset:demo/web-corpus@v1", "").byId).toBe(true);
    expect(whoisVariables("run:0b6c0e1a-5d1e-4a8e-9f00-1234", "").byId).toBe(true);
    expect(whoisVariables("web-corpus", "").byId).toBe(false);
    expect(whoisVariables("s3://bucket/x.parquet", "").byId).toBe(false);
    expect(whoisVariables("sha256:0123456789abcdef0123", "").byId).toBe(false);
  });
});

describe("mergeHits", () => {
  it("puts the exact id first, merges match reasons and filters type and project", () => {
    const hits = mergeHits(
      {
        exact: n("run:1", "Run"),
        byUri: [n("dsv:1", "DatasetVersion")],
        search: [n("run:1", "Run"), n("run:2", "Run", "other")],
      },
      "",
      "p",
    );
    expect(hits.map((h) => [h.node.id, h.matchedBy])).toEqual([
      ["run:1", ["id", "name or id"]],
      ["dsv:1", ["URI"]],
    ]);
    expect(mergeHits({ exact: null, search: [n("run:1", "Run"), n("dsv:1", "DatasetVersion")] }, "DATASET_VERSION", "")).toHaveLength(1);
  });
  it("maps enum values to type labels", () => {
    expect(typeName("MODEL_VERSION")).toBe("ModelVersion");
  });
});
