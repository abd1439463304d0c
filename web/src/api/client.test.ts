import { beforeEach, describe, expect, it } from "vitest";
import { getToken, setToken } from "./auth";
import { AuthError, RequestError, onAuthLost, request, type Fetch } from "./client";

class MemoryStorage {
  private items = new Map<string, string>();
  getItem(k: string) { return this.items.get(k) ?? null; }
  setItem(k: string, v: string) { this.items.set(k, v); }
  removeItem(k: string) { this.items.delete(k); }
}

function answer(status: number, body: unknown): Fetch {
  return async () => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

beforeEach(() => {
  (globalThis as { sessionStorage?: unknown }).sessionStorage = new MemoryStorage();
  setToken("secret-token");
});

describe("request", () => {
  it("sends the token as a bearer header and the variables in the body, not the URL", async () => {
    let seen: { url: string; init: RequestInit } | null = null;
    const data = await request<{ ok: number }>("query Q { x }", { id: "a" }, async (url, init) => {
      seen = { url, init };
      return new Response(JSON.stringify({ data: { ok: 1 } }), { status: 200 });
    });
    expect(data).toEqual({ ok: 1 });
    expect(seen!.url).toBe("/graphql");
    expect((seen!.init.headers as Record<string, string>).Authorization).toBe("Bearer secret-token");
    expect(JSON.parse(String(seen!.init.body))).toEqual({ query: "query Q { x }", variables: { id: "a" } });
  });

  it("clears the token and tells the app on a 401", async () => {
    const messages: string[] = [];
    const off = onAuthLost((m) => messages.push(m));
    await expect(request("query { x }", {}, answer(401, { detail: "no" }))).rejects.toBeInstanceOf(AuthError);
    off();
    expect(getToken()).toBeNull();
    expect(messages[0]).toMatch(/401/);
  });

  it("tells an end of session that came before anybody listened to the first listener, once", async () => {
    onAuthLost(() => undefined)(); // an earlier test's unheard end, if any, is told here
    await expect(request("query { x }", {}, answer(401, { detail: "no" }))).rejects.toBeInstanceOf(AuthError);
    const first: string[] = [];
    const second: string[] = [];
    onAuthLost((m) => first.push(m))();
    onAuthLost((m) => second.push(m))();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/401/);
    expect(second).toEqual([]);
  });

  it("clears the token on an `unauthenticated` GraphQL error", async () => {
    const body = { data: null, errors: [{ message: "token expired", extensions: { code: "unauthenticated" } }] };
    await expect(request("query { x }", {}, answer(200, body))).rejects.toBeInstanceOf(AuthError);
    expect(getToken()).toBeNull();
  });

  it("keeps the token and reports the code of other errors", async () => {
    const body = { data: null, errors: [{ message: "no such node", extensions: { code: "not_found" } }] };
    const error = await request("query { x }", {}, answer(200, body)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe("not_found");
    expect(getToken()).toBe("secret-token");
  });

  it("says each error's message once, in order, when several fields fail", async () => {
    const missing = { message: "project 'x' not found", extensions: { code: "not_found" } };
    const body = { data: null, errors: [missing, { message: "metric 'y' unknown" }, missing] };
    const error = await request("query { a b c }", {}, answer(200, body)).catch((e: unknown) => e);
    expect((error as RequestError).message).toBe("project 'x' not found; metric 'y' unknown");
    expect((error as RequestError).errors).toHaveLength(3);
  });

  it("refuses to send without a token", async () => {
    sessionStorage.removeItem("provgraph.token");
    await expect(request("query { x }", {}, answer(200, { data: {} }))).rejects.toBeInstanceOf(AuthError);
  });
});
