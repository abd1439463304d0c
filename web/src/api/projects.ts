/**
 * The projects the token may read: the API's `projects` list (PROJECTS_QUERY), asked once per
 * sign-in, plus any project an answer names later (one created since the list was read).
 */

import type { ProjectsAnswer } from "./types";

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
/** Whether the list was asked for since sign-in (a failed ask may be tried again). */
let asked = false;
/** Bumped by sign-out, so that an answer asked for by the previous token is dropped. */
let session = 0;

function changed(): void {
  if (typeof sessionStorage !== "undefined") sessionStorage.setItem(KEY, JSON.stringify([...known]));
  const list = knownProjects();
  for (const l of listeners) l(list);
}

/**
 * Every string value of a node's `project` key anywhere in `value` (an answer holds only nodes
 * the token may read). Lists of asked projects, such as the digest's `projects`, are not read:
 * they echo what was asked, readable or not.
 */
export function projectsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) projectsIn(item, found);
  } else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "project" && typeof inner === "string" && inner) found.add(inner);
      else if (key !== "properties" && key !== "projects") projectsIn(inner, found);
    }
  }
  return found;
}

/** Add the projects of the nodes an answer holds. */
export function rememberProjects(answer: unknown): void {
  const before = known.size;
  for (const p of projectsIn(answer)) known.add(p);
  if (known.size !== before) changed();
}

/** The list the API answered replaces what was known (projects no longer readable go). */
export function setProjects(projects: readonly string[]): void {
  known = new Set(projects);
  changed();
}

/** Ask for the list with `ask` once per sign-in; again after a failure. */
export function loadProjects(ask: () => Promise<ProjectsAnswer>): void {
  if (asked) return;
  asked = true;
  const mine = session;
  ask()
    .then((answer) => {
      if (mine === session) setProjects(answer.projects);
    })
    .catch(() => {
      if (mine === session) asked = false;
    });
}

/** The projects known now, sorted. */
export function knownProjects(): string[] {
  return [...known].sort();
}

/** Forget them (sign-out): the next sign-in asks again. */
export function forgetProjects(): void {
  known = new Set();
  asked = false;
  session += 1;
  if (typeof sessionStorage !== "undefined") sessionStorage.removeItem(KEY);
  for (const l of listeners) l([]);
}

export function onProjects(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
