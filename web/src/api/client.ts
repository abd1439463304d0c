/** The GraphQL client: every request goes to /graphql with the bearer token. */

import { bearer, clearToken, getToken } from "./auth";
import type { TypedDocument } from "./queries";

/** The endpoint, same origin as the explorer. */
export const GRAPHQL_URL = "/graphql";

/** One GraphQL error as the query service reports it (`extensions.code`: not_found...). */
export interface GraphQLErrorEntry {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: { code?: string; [key: string]: unknown };
}

/** The token is missing or no longer valid: the user must sign in again. */
export class AuthError extends Error {
  constructor(message = "Your session has ended: sign in again.") {
    super(message);
    this.name = "AuthError";
  }
}

/** A request that failed: an HTTP error or GraphQL errors without data. */
export class RequestError extends Error {
  readonly status: number | null;
  readonly errors: readonly GraphQLErrorEntry[];
  constructor(message: string, status: number | null, errors: readonly GraphQLErrorEntry[] = []) {
    super(message);
    this.name = "RequestError";
    this.status = status;
    this.errors = errors;
  }

  /** The first error code, e.g. `not_found`, `forbidden`, `invalid_argument`. */
  get code(): string | null {
    return this.errors.find((e) => e.extensions?.code)?.extensions?.code ?? null;
  }
}

type AuthListener = (message: string) => void;
const listeners = new Set<AuthListener>();
/** Why the session ended while nobody listened (a request started before the app rendered). */
let unheard: string | null = null;

/**
 * Be told when an answer ends the session (the app shows sign-in with the message); an end
 * that came before anybody listened is told at once.
 */
export function onAuthLost(listener: AuthListener): () => void {
  listeners.add(listener);
  if (unheard !== null) {
    const message = unheard;
    unheard = null;
    listener(message);
  }
  return () => listeners.delete(listener);
}

function authLost(message: string): AuthError {
  clearToken();
  if (listeners.size === 0) unheard = message;
  for (const listener of listeners) listener(message);
  return new AuthError(message);
}

/** Whether a GraphQL answer's errors say the caller is not authenticated. */
export function isUnauthenticated(errors: readonly GraphQLErrorEntry[] | undefined): boolean {
  return (errors ?? []).some((e) => e.extensions?.code === "unauthenticated");
}

/** The messages of an answer's errors, each once (fields failing for one reason say it once). */
function errorMessage(errors: readonly GraphQLErrorEntry[]): string {
  return [...new Set(errors.map((e) => e.message))].join("; ");
}

interface Answer<T> {
  data?: T | null;
  errors?: GraphQLErrorEntry[];
}

/** The part of `fetch` the client needs (replaceable in tests). */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Run `query` with `variables`: a document of queries.ts answers as its generated type says.
 * Throws `AuthError` on a 401 or an `unauthenticated` error (after clearing the token),
 * `RequestError` when there is no data to show.
 */
export async function request<T, V = Record<string, unknown>>(
  query: TypedDocument<T, V>,
  variables?: V,
  fetcher: Fetch = (input, init) => fetch(input, init),
): Promise<T> {
  const token = getToken();
  if (!token) throw authLost("Sign in with a provgraph token.");
  let response: Response;
  try {
    response = await fetcher(GRAPHQL_URL, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", Authorization: bearer(token) },
      body: JSON.stringify({ query, variables: variables ?? {} }),
    });
  } catch (err) {
    throw new RequestError(`The query service could not be reached (${String(err)}).`, null);
  }
  if (response.status === 401) throw authLost("The token was refused (401): sign in again.");
  let answer: Answer<T>;
  try {
    answer = (await response.json()) as Answer<T>;
  } catch {
    throw new RequestError(`The query service answered ${response.status} without JSON.`, response.status);
  }
  if (isUnauthenticated(answer.errors)) throw authLost("The token is not valid any more: sign in again.");
  if (answer.errors?.length && answer.data == null) {
    const message = errorMessage(answer.errors);
    throw new RequestError(message, response.status, answer.errors);
  }
  if (!response.ok && answer.data == null) {
    throw new RequestError(`The query service answered ${response.status}.`, response.status);
  }
  if (answer.errors?.length) {
    // Partial data: the fields that failed are null; the message stays visible.
    const message = errorMessage(answer.errors);
    throw new RequestError(message, response.status, answer.errors);
  }
  return answer.data as T;
}
