import { RequestError } from "../api/client";

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

/** The page for an id that does not exist or that the token may not read. */
export function NotFound({ id }: { id: string }) {
  return (
    <section className="not-found" data-testid="not-found">
      <h2>Not found</h2>
      <p>
        No node <code>{id}</code>, or you may not read it.
      </p>
      <p>
        <a href="#/search">Search</a> for it by name, id, URI or checksum.
      </p>
    </section>
  );
}

/** Whether an error means "no such node, or not readable". */
export function isNotFound(error: Error | null): boolean {
  return error instanceof RequestError && (error.code === "not_found" || error.code === "forbidden");
}

/** A failed request, with its message and code; not-found errors get the not-found page. */
export function ErrorView({ error, id }: { error: Error; id?: string }) {
  if (id !== undefined && isNotFound(error)) return <NotFound id={id} />;
  const code = error instanceof RequestError ? error.code : null;
  return (
    <div className="error" role="alert">
      <strong>Error{code ? ` (${code})` : ""}:</strong> {error.message}
    </div>
  );
}
