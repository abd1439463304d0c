/** A model version's dossier as a file from the REST route `/v1/dossier/{id}`, with the token. */

import { bearer, getToken } from "./auth";
import { AuthError, RequestError, type Fetch } from "./client";

/** The file formats the route answers in. */
export type DossierFormat = "html" | "markdown" | "json" | "pdf";

/** The REST address of `id`'s dossier in `format` (same origin as the explorer, like /graphql). */
export function dossierUrl(id: string, format: DossierFormat): string {
  return `/v1/dossier/${encodeURIComponent(id)}?format=${format}`;
}

/**
 * The file name a `Content-Disposition` header gives (`filename*=UTF-8''…` before
 * `filename="…"`), or `fallback` when it gives none. Only the last path part is kept.
 */
export function dispositionFilename(header: string | null, fallback: string): string {
  if (!header) return fallback;
  let name: string | null = null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      name = decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ""));
    } catch {
      name = null;
    }
  }
  if (!name) {
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
    if (plain) name = plain[1] !== undefined ? plain[1].replace(/\\(.)/g, "$1") : plain[2].trim();
  }
  const last = name?.split(/[/\\]/).pop()?.trim();
  return last ? last : fallback;
}

/** A fetched file: its bytes and the name the server gives it. */
export interface DossierFile {
  blob: Blob;
  filename: string;
}

/**
 * Fetch `id`'s dossier in `format` with the signed-in token. Throws `AuthError` without a
 * token or on a 401, `RequestError` on any other failed answer (a 404: `not_found`).
 */
export async function fetchDossierFile(
  id: string,
  format: DossierFormat,
  fetcher: Fetch = (input, init) => fetch(input, init),
): Promise<DossierFile> {
  const token = getToken();
  if (!token) throw new AuthError("Sign in with a provgraph token.");
  let response: Response;
  try {
    response = await fetcher(dossierUrl(id, format), { headers: { Authorization: bearer(token) } });
  } catch (err) {
    throw new RequestError(`The query service could not be reached (${String(err)}).`, null);
  }
  if (response.status === 401) throw new AuthError("The token was refused (401): sign in again.");
  if (!response.ok) {
    const { code, message } = errorOf(await response.text().catch(() => ""));
    const fallback = response.status === 404 ? "not_found" : response.status === 403 ? "forbidden" : null;
    const errorCode = code ?? fallback;
    const text = `The dossier could not be fetched (${response.status})${message ? `: ${message}` : "."}`;
    throw new RequestError(text, response.status, errorCode ? [{ message: text, extensions: { code: errorCode } }] : []);
  }
  const blob = await response.blob();
  return { blob, filename: dispositionFilename(response.headers.get("Content-Disposition"), `dossier.${format}`) };
}

/** The code and message of an error answer (`{"error": {code, message}}`), or its text, shortened. */
export function errorOf(body: string): { code: string | null; message: string } {
  let code: string | null = null;
  let message = body.trim();
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown }; detail?: unknown };
    if (typeof parsed?.error?.code === "string") code = parsed.error.code;
    if (typeof parsed?.error?.message === "string") message = parsed.error.message;
    else if (typeof parsed?.detail === "string") message = parsed.detail;
  } catch {
    // not JSON: the text as it came
  }
  return { code, message: message.length > 300 ? `${message.slice(0, 300)}…` : message };
}

/** Save `file` as a download under its name (a link to the blob, clicked once). */
export function saveFile(file: DossierFile): void {
  const url = URL.createObjectURL(file.blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = file.filename;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The download has taken the bytes once the click is handled; the URL is freed after.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
