import { useEffect, useState } from "react";
import { request } from "./client";
import { rememberProjects } from "./projects";
import type { TypedDocument } from "./queries";

/** A query's state in a page. */
export interface QueryState<T> {
  data: T | null;
  error: Error | null;
  loading: boolean;
}

/**
 * Run `document` with `variables` whenever the variables change (compared as JSON); the
 * projects of the answer are remembered for the project picker. `skip` holds the request.
 */
export function useQuery<T, V>(document: TypedDocument<T, V>, variables: V, skip = false): QueryState<T> {
  const key = JSON.stringify(variables);
  const [state, setState] = useState<QueryState<T>>({ data: null, error: null, loading: !skip });
  useEffect(() => {
    if (skip) {
      setState({ data: null, error: null, loading: false });
      return undefined;
    }
    let live = true;
    setState((s) => ({ data: s.data, error: null, loading: true }));
    request(document, JSON.parse(key) as V)
      .then((data) => {
        if (!live) return;
        rememberProjects(data);
        setState({ data, error: null, loading: false });
      })
      .catch((error: unknown) => {
        if (live) setState({ data: null, error: error instanceof Error ? error : new Error(String(error)), loading: false });
      });
    return () => {
      live = false;
    };
  }, [document, key, skip]);
  return state;
}
