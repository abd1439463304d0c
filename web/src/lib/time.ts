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

/**
 * A length of time as a person reads it: `45 s`, `12 min`, `5 h 20 min`, `3 d 4 h`, `330 d`
 * (whole units, the smaller one dropped when it is zero or, from 10 days, too small to matter).
 */
export function humanDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "—";
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 24 * 60) {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const hours = Math.round(seconds / 3600);
  if (hours < 10 * 24) {
    const d = Math.floor(hours / 24);
    const h = hours % 24;
    return h ? `${d} d ${h} h` : `${d} d`;
  }
  return `${Math.round(seconds / 86400)} d`;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** A duration as the API reads it (`30m`, `2h`, `7d`, `1w`, `90s`) in seconds; null when it is none. */
export function durationSeconds(text: string): number | null {
  const found = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$/.exec(text);
  if (!found) return null;
  const n = Number(found[1]) * UNITS[found[2]];
  return n > 0 ? n : null;
}

/** An ISO time as UTC with whole seconds when it has no fraction (`…T00:00:00Z`); unreadable text as it is. */
export function compactIso(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace(/\.000Z$/, "Z");
}

/**
 * The end of the window after one ending at `until` (`since` long): `until` moved on by `since`,
 * '' (now) when that reaches `now`, null when the window already ends now or cannot be moved.
 */
export function laterUntil(until: string, since: string, now: Date = new Date()): string | null {
  const length = durationSeconds(since);
  const end = until ? new Date(until).getTime() : Number.NaN;
  if (length === null || Number.isNaN(end)) return null;
  const next = end + length * 1000;
  return next >= now.getTime() ? "" : compactIso(new Date(next).toISOString());
}
