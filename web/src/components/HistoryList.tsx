import { useEffect, useState } from "react";
import { request } from "../api/client";
import { HISTORY_QUERY } from "../api/queries";
import type { HistoryEntry } from "../api/types";
import { ErrorView, Loading } from "./Status";

const PAGE = 50;

/** A node's events, newest first, with who sent each (actor) and who was authenticated. */
export function HistoryList({ id }: { id: string }) {
  const [items, setItems] = useState<HistoryEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [after, setAfter] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    setItems([]);
    setAfter(null);
  }, [id]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    request(HISTORY_QUERY, { id, first: PAGE, after })
      .then((answer) => {
        if (!live) return;
        const page = answer.history;
        setItems((old) => (after ? [...old, ...(page?.items ?? [])] : page?.items ?? []));
        setCursor(page?.nextCursor ?? null);
        setError(null);
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e : new Error(String(e))))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [id, after]);

  return (
    <section className="history" aria-labelledby="history-title">
      <h3 id="history-title">Event history</h3>
      {error && <ErrorView error={error} />}
      {!items.length && !loading && !error && <p className="muted">No events recorded.</p>}
      {items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>When (client)</th>
              <th>Logged (server)</th>
              <th>Event</th>
              <th>Actor</th>
              <th>Principal</th>
              <th>Producer</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.eventId} data-event-id={e.eventId}>
                <td>{e.occurredAt}</td>
                <td>{e.loggedAt ?? "—"}</td>
                <td data-field="history.eventType">{e.eventType}</td>
                <td data-field="history.actor">{e.actor ?? "—"}</td>
                <td data-field="history.principal">{e.principal ?? "— (written straight to the log)"}</td>
                <td>{e.producer ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {loading && <Loading what="Loading events" />}
      {cursor && !loading && (
        <button type="button" onClick={() => setAfter(cursor)}>
          Older events
        </button>
      )}
    </section>
  );
}
