/**
 * The projects the token may read. The schema has no project list: they are gathered from
 * the `nodes` families (PROJECTS_QUERY) and from every answer's `project` fields.
 */

const KEY = "provgraph.projects";
type Listener = (projects: string[]) => void;
const listeners = new Set<Listener>();

function load(): Set<string> {
  try {
    const raw = typeof sessionStorage === "undefined" ? null : sessionStorage.getItem(KEY);
    return new Set(raw ? (JSON.parse(raw) as string[]) : []);
  } catch {
    return new Set();
  }
}

let known = load();

/** Every string value of a `project` key anywhere in `value`. */
export function projectsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) projectsIn(item, found);
  } else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "project" && typeof inner === "string" && inner) found.add(inner);
      else if (key === "projects" && Array.isArray(inner)) inner.forEach((p) => typeof p === "string" && found.add(p));
      else if (key !== "properties") projectsIn(inner, found);
    }
  }
  return found;
}

/** Add the projects of an answer. */
export function rememberProjects(answer: unknown): void {
  const before = known.size;
  for (const p of projectsIn(answer)) known.add(p);
  if (known.size === before) return;
  if (typeof sessionStorage !== "undefined") sessionStorage.setItem(KEY, JSON.stringify([...known]));
  const list = knownProjects();
  for (const l of listeners) l(list);
}

/** The projects seen so far, sorted. */
export function knownProjects(): string[] {
  return [...known].sort();
}

/** Forget them (sign-out). */
export function forgetProjects(): void {
  known = new Set();
  if (typeof sessionStorage !== "undefined") sessionStorage.removeItem(KEY);
  for (const l of listeners) l([]);
}

export function onProjects(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
