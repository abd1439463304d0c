/** GraphiQL's fetcher: POST to /graphql with the pasted token as a bearer header. */

import type { FormattedExecutionResult } from "graphql";
import { bearer } from "../api/auth";
import { GRAPHQL_URL } from "../api/client";

export interface GraphQLParams {
  query: string;
  operationName?: string | null;
  variables?: unknown;
}

/** A fetcher that reads the token at each request (so a newly pasted token is used at once). */
export function tokenFetcher(token: () => string | null, doFetch: typeof fetch = (i, init) => fetch(i, init)) {
  return async (params: GraphQLParams): Promise<FormattedExecutionResult> => {
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
    const t = token();
    if (t) headers.Authorization = bearer(t);
    const response = await doFetch(GRAPHQL_URL, { method: "POST", headers, body: JSON.stringify(params) });
    const body = await response.text();
    try {
      return JSON.parse(body) as FormattedExecutionResult;
    } catch {
      return { errors: [{ message: `HTTP ${response.status}: ${body.slice(0, 500)}` }] };
    }
  };
}
