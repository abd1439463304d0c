import { describe, expect, it } from "vitest";
import { projectsIn } from "./projects";

describe("projectsIn", () => {
  it("finds project fields at any depth, skipping stored properties", () => {
    const answer = {
      experiments: { items: [{ project: "vision" }, { project: null }] },
      lineage: { nodes: [{ id: "a", project: "nlp", properties: { project: "hidden" } }] },
      digest: { projects: ["ops"] },
    };
    expect([...projectsIn(answer)].sort()).toEqual(["nlp", "ops", "vision"]);
  });
});
