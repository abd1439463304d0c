import { describe, expect, it } from "vitest";
import { tokenFetcher } from "./fetcher";

describe("tokenFetcher", () => {
  it("sends the current token as a bearer header to /graphql, never in the URL", async () => {
    let token = "first";
    const calls: { url: string; init: RequestInit }[] = [];
    const fetcher = tokenFetcher(() => token, async (url, init) => {
      calls.push({ url: String(url), init: init ?? {} });
      return new Response('{"data": {"x": 1}}', { status: 200 });
    });
    expect(await fetcher({ query: "{ x }" })).toEqual({ data: { x: 1 } });
    token = "second";
    await fetcher({ query: "{ x }" });
    expect(calls.map((c) => c.url)).toEqual(["/graphql", "/graphql"]);
    expect(calls.map((c) => (c.init.headers as Record<string, string>).Authorization)).toEqual(["Bearer first", "Bearer second"]);
  });

  it("turns a non-JSON answer into a GraphQL error GraphiQL can show", async () => {
    const fetcher = tokenFetcher(() => null, async () => new Response("Unauthorized", { status: 401 }));
    expect(await fetcher({ query: "{ x }" })).toEqual({ errors: [{ message: "HTTP 401: Unauthorized" }] });
  });
});
