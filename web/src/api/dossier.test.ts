import { beforeEach, describe, expect, it } from "vitest";
import { setToken } from "./auth";
import { AuthError, RequestError } from "./client";
import { dispositionFilename, dossierUrl, errorOf, fetchDossierFile } from "./dossier";

class MemoryStorage {
  private items = new Map<string, string>();
  getItem(k: string) { return this.items.get(k) ?? null; }
  setItem(k: string, v: string) { this.items.set(k, v); }
  removeItem(k: string) { this.items.delete(k); }
}

beforeEach(() => {
  (globalThis as { sessionStorage?: unknown }).sessionStorage = new MemoryStorage();
  setToken("secret-token");
});

describe("dossierUrl", () => {
  it("puts the id in one path segment and the format in the query", () => {
    expect(dossierUrl("model:p/chat-1b@1.0.0", "pdf")).toBe("/v1/dossier/model%3Ap%2Fchat-1b%401.0.0?format=pdf");
  });
});

describe("dispositionFilename", () => {
  it("reads a quoted, a bare and an extended filename", () => {
    expect(dispositionFilename('attachment; filename="dossier-chat-1b-1.0.0.pdf"', "x.pdf")).toBe("dossier-chat-1b-1.0.0.pdf");
    expect(dispositionFilename("attachment; filename=dossier-a-1.pdf", "x.pdf")).toBe("dossier-a-1.pdf");
    expect(dispositionFilename("attachment; filename=\"a.pdf\"; filename*=UTF-8''d%C3%A9-1.pdf", "x.pdf")).toBe("dé-1.pdf");
  });

  it("keeps only the last path part, and falls back without a name", () => {
    expect(dispositionFilename('attachment; filename="../../etc/passwd"', "x.pdf")).toBe("passwd");
    expect(dispositionFilename("attachment", "x.pdf")).toBe("x.pdf");
    expect(dispositionFilename(null, "x.pdf")).toBe("x.pdf");
  });
});

describe("errorOf", () => {
  it("reads the service's error shape, and plain text", () => {
    expect(errorOf(JSON.stringify({ error: { code: "not_found", message: "Not found: model:p/m@9." } }))).toEqual({
      code: "not_found",
      message: "Not found: model:p/m@9.",
    });
    expect(errorOf("Bad gateway")).toEqual({ code: null, message: "Bad gateway" });
  });
});

describe("fetchDossierFile", () => {
  it("sends the token as a bearer header and names the file as the server does", async () => {
    let seen: { url: string; init: RequestInit } | null = null;
    const file = await fetchDossierFile("model:p/m@1", "pdf", async (url, init) => {
      seen = { url, init };
      return new Response("%PDF-1.7", {
        status: 200,
        headers: { "Content-Type": "application/pdf", "Content-Disposition": 'attachment; filename="dossier-m-1.pdf"' },
      });
    });
    expect(seen!.url).toBe("/v1/dossier/model%3Ap%2Fm%401?format=pdf");
    expect((seen!.init.headers as Record<string, string>).Authorization).toBe("Bearer secret-token");
    expect(file.filename).toBe("dossier-m-1.pdf");
    expect(await file.blob.text()).toBe("%PDF-1.7");
  });

  it("reports a 404 as not_found and a 401 as the end of the session", async () => {
    const missing = await fetchDossierFile("model:p/m@9", "pdf", async () =>
      new Response(JSON.stringify({ error: { code: "not_found", message: "Not found." } }), { status: 404 }),
    ).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RequestError);
    expect((missing as RequestError).code).toBe("not_found");
    expect((missing as RequestError).message).toBe("The dossier could not be fetched (404): Not found.");
    await expect(fetchDossierFile("model:p/m@1", "pdf", async () => new Response("", { status: 401 }))).rejects.toBeInstanceOf(
      AuthError,
    );
  });

  it("refuses to send without a token", async () => {
    sessionStorage.removeItem("provgraph.token");
    let sent = false;
    await expect(
      fetchDossierFile("model:p/m@1", "pdf", async () => {
        sent = true;
        return new Response("");
      }),
    ).rejects.toBeInstanceOf(AuthError);
    expect(sent).toBe(false);
  });
});
