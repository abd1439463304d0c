/** The as-of control: a local `datetime-local` value ↔ the ISO time the API takes. */

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** An ISO time as a `datetime-local` value in the browser's zone ('' when unreadable). */
export function isoToLocalInput(iso: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value as an ISO UTC time ('' when empty or unreadable). */
export function localInputToIso(value: string): string {
  if (!value) return "";
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString().replace(/\.000Z$/, "Z");
}
