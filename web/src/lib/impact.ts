/** The impact answer grouped for people: live deployments, model versions, runs. */

import type { EvaluationResult, ImpactAnswer, NodeSummary } from "../api/types";
import { asObject, text } from "./json";

export interface ImpactEntry {
  node: NodeSummary;
  /** Hops from the start: the depth of the lineage link to open. */
  hops: number;
  /** The ids along the path, start first (when the answer gives one). */
  path: string[];
  /** A model version's evaluation results, a row per metric, oldest first (empty for others). */
  evaluations: EvaluationResult[];
}

export interface ImpactGroups {
  deployments: ImpactEntry[];
  modelVersions: ImpactEntry[];
  runs: ImpactEntry[];
  other: ImpactEntry[];
  runsTruncated: boolean;
}

/** Group the answer; runs come from the downstream lineage, with their depth as hops. */
export function groupImpact(answer: ImpactAnswer): ImpactGroups {
  const groups: ImpactGroups = { deployments: [], modelVersions: [], runs: [], other: [], runsTruncated: false };
  for (const item of answer.impact ?? []) {
    const entry = {
      node: item.node,
      hops: Math.max(item.path.edges.length, 1),
      path: item.path.nodes.map((n) => n.id),
      evaluations: item.evaluationResults,
    };
    if (item.node.type === "Deployment") groups.deployments.push(entry);
    else if (item.node.type === "ModelVersion") groups.modelVersions.push(entry);
    else groups.other.push(entry);
  }
  const depths = asObject(answer.runs?.depths);
  const rootId = answer.root?.id;
  for (const node of answer.runs?.nodes ?? []) {
    if (node.type !== "Run" || node.id === rootId) continue;
    const d = depths[node.id];
    groups.runs.push({ node, hops: typeof d === "number" && d > 0 ? d : 1, path: [], evaluations: [] });
  }
  groups.runs.sort((a, b) => a.hops - b.hops || a.node.id.localeCompare(b.node.id));
  groups.runsTruncated = answer.runs?.truncated ?? false;
  return groups;
}

/** An evaluation's suite as `provgraph impact` names it: `demo-eval 2`, or `no suite`. */
export function suiteText(r: Pick<EvaluationResult, "suite" | "suiteVersion">): string {
  return [r.suite, r.suiteVersion].filter(Boolean).join(" ") || "no suite";
}

/** `acc = 0.66`, or `no metric` for an evaluation that recorded none. */
export function scoreText(r: Pick<EvaluationResult, "metric" | "value">): string {
  return r.metric == null ? "no metric" : `${r.metric} = ${text(r.value)}`;
}
