/** The `reproduce` answer as a checklist: one step per thing to get right, with what to copy. */

import type { Json } from "../api/types";
import { typeStyle } from "../graph/styles";
import { asArray, asObject, flatten, text, type JsonObject } from "./json";

/**
 * The base a run started from as the other steps name things: its type's label and its name and
 * version (`model version base-1b 1.0.0`), a checkpoint by its step, else its id.
 */
export function baseLabel(base: JsonObject): string {
  const type = typeof base.type === "string" ? typeStyle(base.type).label.toLowerCase() : "base";
  const named = [base.name, base.version].filter((v) => v != null && v !== "").map(text).join(" ");
  const what = named || (base.step != null ? `at step ${text(base.step)}` : text(base.id));
  return `${type} ${what}`;
}

/** What a step is about (the page marks each item with it). */
export type StepKind = "base" | "code" | "image" | "packages" | "data" | "params" | "resources" | "resume" | "export" | "verify";

export interface RecipeStep {
  key: string;
  kind: StepKind;
  title: string;
  detail: string;
  /** What the copy button copies, when there is something to paste. */
  copy: string | null;
  /** A node to link to. */
  id: string | null;
}

function datasetSteps(input: JsonObject, runId: string, depth: number, out: RecipeStep[]): void {
  const id = typeof input.id === "string" ? input.id : null;
  const label = [input.name, input.version].filter((v) => v != null).map(String).join(" ");
  const role = input.role != null ? `${String(input.role)}: ` : input.transform != null ? `derived by ${String(input.transform)} from ` : "";
  const rules = asArray(input.cleaning_rules).map((r) => text(asObject(r).name ?? r)).join(", ");
  const facts = [
    input.storage_uri != null ? `at ${text(input.storage_uri)}` : null,
    input.checksum != null ? `checksum ${text(input.checksum)}` : null,
    input.record_count != null ? `${text(input.record_count)} records` : null,
    rules ? `cleaning: ${rules}` : null,
    input.placeholder === true ? "PLACEHOLDER: never recorded" : null,
    input.deleted_at != null ? "DELETED" : null,
  ].filter(Boolean);
  out.push({
    key: `${runId}:data:${id ?? label}:${depth}`,
    kind: "data",
    title: `${"  ".repeat(depth)}Data — ${role}${label || id || "unknown"}`,
    detail: facts.join("; "),
    copy: input.storage_uri != null ? text(input.storage_uri) : id,
    id,
  });
  for (const parent of asArray(input.derived_from)) datasetSteps(asObject(parent), runId, depth + 1, out);
}

function runSteps(value: Json | undefined, out: RecipeStep[], prefix: string): void {
  const run = asObject(value);
  if (!Object.keys(run).length) return;
  const id = typeof run.id === "string" ? run.id : "run";
  const base = asObject(run.base);
  if (Object.keys(base).length) {
    out.push({ key: `${id}:base`, kind: "base", title: `${prefix}Start from ${baseLabel(base)}`, detail: "", copy: text(base.id), id: typeof base.id === "string" ? base.id : null });
    runSteps(base.run_recipe ?? base.run, out, `${prefix}(base) `);
  }
  const code = asObject(run.code);
  out.push({
    key: `${id}:code`,
    kind: "code",
    title: `${prefix}Code of ${text(run.name ?? id)}`,
    detail: [code.repo, code.commit, code.dirty === true ? "DIRTY working tree: not exactly reproducible" : null].filter(Boolean).map(text).join(" @ "),
    copy: code.commit ? `git checkout ${text(code.commit)}` : null,
    id,
  });
  const env = asObject(run.environment);
  if (Object.keys(env).length) {
    out.push({
      key: `${id}:image`,
      kind: "image",
      title: `${prefix}Environment image`,
      detail: [text(env.image_ref), env.python_version != null ? `python ${text(env.python_version)}` : null].filter(Boolean).join(", "),
      copy: env.image_ref != null ? text(env.image_ref) : null,
      id: typeof env.id === "string" ? env.id : null,
    });
    const packages = Object.entries(asObject(env.packages)).map(([n, v]) => `${n}==${text(v)}`);
    if (packages.length) {
      out.push({ key: `${id}:packages`, kind: "packages", title: `${prefix}Packages (${packages.length})`, detail: packages.join(" "), copy: `pip install ${packages.join(" ")}`, id: null });
    }
  }
  for (const input of asArray(run.inputs)) datasetSteps(asObject(input), id, 0, out);
  const params = Object.entries(flatten(run.params));
  out.push({
    key: `${id}:params`,
    kind: "params",
    title: `${prefix}Parameters (${params.length})`,
    detail: params.map(([k, v]) => `${k}=${text(v)}`).join(" "),
    copy: params.length ? JSON.stringify(asObject(run.params), null, 2) : null,
    id: null,
  });
  if (run.resources != null) {
    out.push({ key: `${id}:resources`, kind: "resources", title: `${prefix}Resources`, detail: text(run.resources), copy: null, id: null });
  }
  for (const resume of asArray(run.resumed_from)) {
    const r = asObject(resume);
    out.push({
      key: `${id}:resume:${text(r.id)}`,
      kind: "resume",
      title: `${prefix}Resume from checkpoint at step ${text(r.step)}`,
      detail: [r.uri, r.checksum ? `checksum ${text(r.checksum)}` : null, r.status].filter(Boolean).map(text).join("; "),
      copy: r.uri != null ? text(r.uri) : text(r.id),
      id: typeof r.id === "string" ? r.id : null,
    });
    if (r.run_recipe) runSteps(r.run_recipe, out, `${prefix}(resumed run) `);
  }
}

/** The checklist of a recipe, in the order one would follow it. */
export function recipeSteps(recipe: Json): RecipeStep[] {
  const r = asObject(recipe);
  const steps: RecipeStep[] = [];
  runSteps(r.run, steps, "");
  const exported = asObject(r.exported_from);
  if (Object.keys(exported).length) {
    steps.push({
      key: "export",
      kind: "export",
      title: `Export the checkpoint at step ${text(exported.step)}`,
      detail: [exported.uri, exported.checksum ? `checksum ${text(exported.checksum)}` : null].filter(Boolean).map(text).join("; "),
      copy: exported.uri != null ? text(exported.uri) : null,
      id: typeof exported.id === "string" ? exported.id : null,
    });
  }
  const target = asObject(r.target);
  if (target.checksum != null) {
    steps.push({ key: "verify", kind: "verify", title: "Verify the result's checksum", detail: text(target.checksum), copy: text(target.checksum), id: typeof target.id === "string" ? target.id : null });
  }
  return steps;
}

/** The recipe's gaps: what makes it incomplete. */
export function recipeGaps(recipe: Json): { at: string; issue: string }[] {
  return asArray(asObject(recipe).gaps).map((g) => {
    const gap = asObject(g);
    return { at: text(gap.at), issue: text(gap.issue) };
  });
}
