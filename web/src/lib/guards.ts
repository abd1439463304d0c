/**
 * The Guards page's texts as `provgraph lint-metrics`, `lint-names` and `collisions` print them
 * (`recipes/guards.py`: `render_lint_metrics`, `render_lint_names`, `render_collisions`).
 */

import type { MetricGroup, NameRuleReport } from "../api/types";

/** A word as a POSIX shell reads it back unchanged: as it is when it is safe, else single-quoted. */
export function shellWord(word: string): string {
  if (word && /^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/** The spellings still to declare, each with the canonical name of its group, in the answer's order. */
export function pendingAliases(groups: readonly MetricGroup[]): [string, string][] {
  return groups.flatMap((g) => g.undeclared.map((name): [string, string] => [name, g.canonical]));
}

/**
 * The `provgraph policy set` command that declares the undeclared spellings as aliases of their
 * canonical names (null: none to declare). A policy restates every rule: the rest of the
 * project's policy has to be stated again beside these flags.
 */
export function declareCommand(project: string, groups: readonly MetricGroup[]): string | null {
  const pending = pendingAliases(groups);
  if (!pending.length) return null;
  const flags = pending.map(([name, canonical]) => `--metric-alias ${shellWord(`${name}=${canonical}`)}`);
  return `provgraph policy set ${shellWord(project)} ${flags.join(" ")}`;
}

/** A group's state: `settled` when every other spelling is declared an alias of the canonical name. */
export function groupState(group: Pick<MetricGroup, "settled">): string {
  return group.settled ? "settled" : "not declared";
}

/** One spelling of a group: `validation/loss: 2 records, alias of val/loss`. */
export function spellingText(spelling: MetricGroup["names"][number]): string {
  const records = `${spelling.records} record${spelling.records === 1 ? "" : "s"}`;
  return `${spelling.name}: ${records}${spelling.aliasOf ? `, alias of ${spelling.aliasOf}` : ""}`;
}

/** A kind as people say it: `model_version` -> `model version`. */
export function kindText(kind: string): string {
  return kind.replace(/_/g, " ");
}

/** How many of a kind's records break its rule, of those checked: `1 of 3 break it (more not checked)`. */
export function breaksText(report: Pick<NameRuleReport, "breaks" | "checked" | "truncated">): string {
  const more = report.truncated ? " (more not checked)" : "";
  return `${report.breaks.length} of ${report.checked} break it${more}`;
}

/** Whether ingest refuses what a guard finds (`require_names`, `require_places`). */
export function enforcedText(enforced: boolean): string {
  return enforced ? "refused at ingest" : "not enforced";
}
