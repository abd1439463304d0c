/** What the search page's lessons mode asks (`lessons`), from its route. */

import type { LessonsQueryVariables } from "../api/generated";
import { apiLessonKinds, type LessonsRoute } from "../routes/route";

/** The kinds a lessons search may be kept to, as links name them, and what each holds. */
export const LESSON_KINDS: ReadonlyArray<{ kind: string; label: string }> = [
  { kind: "run", label: "Runs" },
  { kind: "experiment", label: "Experiments" },
  { kind: "dataset", label: "Datasets and versions" },
  { kind: "model", label: "Model versions" },
  { kind: "deployment", label: "Deployments" },
];

/** How many hits one answer holds (the API's default, as `provgraph search --limit`). */
export const LESSONS_FIRST = 20;

/** `text` trimmed, null when nothing is left: a filter not given. */
function given(text: string): string | null {
  return text.trim() || null;
}

/** LESSONS_QUERY's variables of a lessons route: every filter not given is null. */
export function lessonsVariables(route: LessonsRoute): LessonsQueryVariables {
  return {
    text: route.q.trim(),
    project: given(route.project),
    kinds: route.kinds.length ? apiLessonKinds(route.kinds) : null,
    status: given(route.status),
    metric: given(route.metric),
    param: given(route.param),
    uses: given(route.uses),
  };
}

/** Whether the route keeps the search to anything but its words. */
export function filtered(route: LessonsRoute): boolean {
  return Object.entries(lessonsVariables(route)).some(([name, value]) => name !== "text" && value !== null);
}
