/** The impact answer grouped for people: live deployments, model versions, runs. */

import type { ImpactAnswer, NodeSummary } from "../api/types";
import { asObject } from "./json";

export interface ImpactEntry {
  node: NodeSummary;
  /** Hops from the start: the depth of the lineage link to open. */
  hops: number;
  /** The ids along the path, start first (when the answer gives one). */
  path: string[];
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
    const entry = { node: item.node, hops: Math.max(item.path.edges.length, 1), path: item.path.nodes.map((n) => n.id) };
    if (item.node.type === "Deployment") groups.deployments.push(entry);
    else if (item.node.type === "ModelVersion") groups.modelVersions.push(entry);
    else groups.other.push(entry);
  }
  const depths = asObject(answer.runs?.depths);
  const rootId = answer.root?.id;
  for (const node of answer.runs?.nodes ?? []) {
    if (node.type !== "Run" || node.id === rootId) continue;
    const d = depths[node.id];
    groups.runs.push({ node, hops: typeof d === "number" && d > 0 ? d : 1, path: [] });
  }
  groups.runs.sort((a, b) => a.hops - b.hops || a.node.id.localeCompare(b.node.id));
  groups.runsTruncated = answer.runs?.truncated ?? false;
  return groups;
}
