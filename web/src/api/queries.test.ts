import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIST_SIZE, MAX_COST, operationCosts } from "./cost";
import { ALL_QUERIES } from "./queries";

const WEB = resolve(__dirname, "..", "..");
const schema = buildSchema(readFileSync(join(WEB, "schema.graphql"), "utf8"));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("query documents", () => {
  it("lists every exported document of queries.ts", async () => {
    const module = (await import("./queries")) as Record<string, unknown>;
    const exported = Object.entries(module).filter(([name, v]) => typeof v === "string" && name.endsWith("_QUERY"));
    expect(exported.length).toBeGreaterThanOrEqual(11);
    for (const [name] of exported) expect(ALL_QUERIES).toHaveProperty(name);
  });

  for (const [name, document] of Object.entries(ALL_QUERIES)) {
    it(`${name} validates against schema.graphql`, () => {
      const errors = validate(schema, parse(document));
      expect(errors.map((e) => e.message)).toEqual([]);
    });
  }

  for (const [name, document] of Object.entries(ALL_QUERIES)) {
    it(`${name} costs at most ${MAX_COST} by the service's complexity rule`, () => {
      const costs = [...operationCosts(schema, parse(document)).values()];
      expect(costs.length).toBeGreaterThan(0);
      for (const cost of costs) expect(cost).toBeLessThanOrEqual(MAX_COST);
    });
  }

  it("costs fields times the lists above them, as the service counts", () => {
    const cost = (doc: string) => [...operationCosts(schema, parse(doc)).values()][0];
    expect(cost('query { search(text: "x", first: 100) { id type } }')).toBe(1 + 2 * 100);
    expect(cost("query { nodes(type: RUN, first: 20) { items { id } nextCursor } }")).toBe(1 + (1 + 20) + 1);
    expect(cost('query { node(id: "x") { ... on Run { checkpoints { id run { id } } } } }')).toBe(
      1 + 1 + DEFAULT_LIST_SIZE * (1 + 1 + 1),
    );
    // Three nested unbounded lists are over the limit: the check can fail.
    expect(
      cost('query { node(id: "x") { ... on Run { resumedFrom { run { resumedFrom { run { resumedFrom { run { params finalMetrics startedAt endedAt status name } } } } } } } } }'),
    ).toBeGreaterThan(MAX_COST);
  });

  it("rejects a document with a field the schema lacks (the check can fail)", () => {
    const errors = validate(schema, parse("query { node(id: \"x\") { id inventedField } }"));
    expect(errors.length).toBeGreaterThan(0);
  });

  it("no GraphQL document lives outside src/api/queries.ts", () => {
    const offenders = sourceFiles(join(WEB, "src"))
      .filter((path) => !path.endsWith(join("api", "queries.ts")))
      .filter((path) => /\b(query|mutation|fragment)\s+\w+\s*[({]/.test(readFileSync(path, "utf8")) &&
        /\/\*\s*GraphQL\s*\*\//.test(readFileSync(path, "utf8")));
    expect(offenders).toEqual([]);
  });
});
