import { afterEach, describe, expect, it } from "vitest";
import { forgetProjects, knownProjects, loadProjects, projectsIn, rememberProjects, setProjects } from "./projects";
import type { ProjectsAnswer } from "./types";

/** An ask whose answer the test releases (or fails) when it wants. */
function pending() {
  const asks: { resolve: (a: ProjectsAnswer) => void; reject: (e: Error) => void }[] = [];
  const ask = () =>
    new Promise<ProjectsAnswer>((resolve, reject) => {
      asks.push({ resolve, reject });
    });
  return { ask, asks };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => forgetProjects());

describe("projectsIn", () => {
  it("finds project fields at any depth, skipping stored properties and asked projects", () => {
    const answer = {
      experiments: { items: [{ project: "vision" }, { project: null }] },
      lineage: { nodes: [{ id: "a", project: "nlp", properties: { project: "hidden" } }] },
      digest: { projects: ["typo-or-unreadable"], runs: [{ project: "ops" }] },
    };
    expect([...projectsIn(answer)].sort()).toEqual(["nlp", "ops", "vision"]);
  });
});

describe("the project list", () => {
  it("is the API's answer, asked once, replacing what an earlier session left", async () => {
    rememberProjects({ project: "stale" });
    const { ask, asks } = pending();
    loadProjects(ask);
    loadProjects(ask);
    expect(asks).toHaveLength(1);
    asks[0].resolve({ projects: ["vision", "nlp"] });
    await settle();
    expect(knownProjects()).toEqual(["nlp", "vision"]);
    // A project an answer names later joins the list.
    rememberProjects({ node: { project: "ops" } });
    expect(knownProjects()).toEqual(["nlp", "ops", "vision"]);
  });

  it("asks again after a failure and after sign-out, dropping the old token's answer", async () => {
    const { ask, asks } = pending();
    loadProjects(ask);
    asks[0].reject(new Error("offline"));
    await settle();
    loadProjects(ask);
    expect(asks).toHaveLength(2);
    forgetProjects();
    asks[1].resolve({ projects: ["previous-token"] });
    await settle();
    expect(knownProjects()).toEqual([]);
    loadProjects(ask);
    expect(asks).toHaveLength(3);
    asks[2].resolve({ projects: ["mine"] });
    await settle();
    expect(knownProjects()).toEqual(["mine"]);
  });

  it("setProjects drops projects no longer answered", () => {
    setProjects(["a", "b"]);
    setProjects(["b"]);
    expect(knownProjects()).toEqual(["b"]);
  });
});
