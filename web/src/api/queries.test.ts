import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
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
