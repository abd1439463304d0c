import { describe, expect, it } from "vitest";
import { parseRoute, type LessonsRoute } from "../routes/route";
import { filtered, lessonsVariables } from "./lessons";

const lessons = (hash: string): LessonsRoute => {
  const route = parseRoute(hash);
  if (route.page !== "search" || route.mode !== "lessons") throw new Error(`not a lessons route: ${hash}`);
  return route;
};

describe("lessonsVariables", () => {
  it("asks with the words and every filter of the link, kinds as the API's enum", () => {
    const route = lessons(
      "#/search?mode=lessons&q=+out+of+memory+&project=demo-llm&kind=run&kind=model&status=failed&metric=final%3Aval%2Floss%3C1.5&param=lr%3D2e-5&uses=dataset%3Ap%2Fx%40v1",
    );
    expect(lessonsVariables(route)).toEqual({
      text: "out of memory",
      project: "demo-llm",
      kinds: ["RUN", "MODEL"],
      status: "failed",
      metric: "final:val/loss<1.5",
      param: "lr=2e-5",
      uses: "dataset:p/x@v1",
    });
    expect(filtered(route)).toBe(true);
  });

  it("sends null for every filter not given", () => {
    const route = lessons("#/search?mode=lessons&q=diverged&status=+");
    expect(lessonsVariables(route)).toEqual({
      text: "diverged",
      project: null,
      kinds: null,
      status: null,
      metric: null,
      param: null,
      uses: null,
    });
    expect(filtered(route)).toBe(false);
    expect(filtered(lessons("#/search?mode=lessons&q=x&kind=run"))).toBe(true);
  });
});
