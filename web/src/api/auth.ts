/** The provgraph token, kept only in sessionStorage (never in a URL, never logged). */

const KEY = "provgraph.token";

/** Where the token lives; sessionStorage in the browser, replaceable in tests. */
export interface TokenStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

function store(): TokenStore | null {
  return typeof sessionStorage === "undefined" ? null : sessionStorage;
}

/** The signed-in token, or null. */
export function getToken(s: TokenStore | null = store()): string | null {
  const token = s?.getItem(KEY) ?? null;
  return token && token.trim() ? token : null;
}

/** Keep `token` for this browser tab's session. */
export function setToken(token: string, s: TokenStore | null = store()): void {
  s?.setItem(KEY, token.trim());
}

/** Forget the token (sign-out, or an answer saying it is not valid). */
export function clearToken(s: TokenStore | null = store()): void {
  s?.removeItem(KEY);
}

/** The Authorization header value for `token`. */
export function bearer(token: string): string {
  return `Bearer ${token}`;
}
