/**
 * Names for the parts of the answers that the pages read. Every shape is the generated type of
 * a document in queries.ts (generated.ts, from schema.graphql): none is written by hand, so a
 * schema change that a page's reading no longer fits fails `tsc`.
 */

import type * as G from "./generated";

export type { Json } from "./scalars";

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type FieldOf<T, K extends PropertyKey> = T extends { [P in K]: infer V } ? V : never;

/**
 * A union of answer shapes (one per node type) read as one object: the fields every member
 * has as they are, the fields of some members optional.
 */
type Widen<T> = Pick<T, keyof T> & { [K in Exclude<KeysOfUnion<T>, keyof T>]?: FieldOf<T, K> };

/** A node as the `NodeFields` fragment answers it: common fields, and its type's name-like ones. */
export type NodeSummary = Widen<G.NodeFieldsFragment>;

/** A link to a node, labelled by whichever of its name-like fields the answer has. */
export interface Ref {
  id: string;
  name?: string | null;
  version?: string | null;
  runNumber?: number | null;
  status?: string | null;
  key?: string | null;
  step?: number | null;
}

export type WhoisAnswer = G.WhoisQuery;

/** PROJECTS_QUERY's answer: the projects the token may read, by name. */
export type ProjectsAnswer = G.ProjectsQuery;

/** The node card answer: the summary plus the fields of its own type (`__typename` tells which). */
export type NodeCard = NonNullable<G.NodeCardQuery["node"]>;

/** The node card answer of one GraphQL type, e.g. `NodeCardOf<"Run">`. */
export type NodeCardOf<T extends NodeCard["__typename"]> = Extract<NodeCard, { __typename: T }>;

type RunNode = NodeCardOf<"Run">;

export type ResumeLink = G.ResumeLinkFieldsFragment;

/** One series of `Run.metricSeries`: a metric the run logged, downsampled, by step. */
export type MetricSeries = RunNode["metricSeries"][number];

/** `Run.resources`: the compute a run's `run.started` event recorded. */
export type RunResources = NonNullable<RunNode["resources"]>;

/**
 * One item of `ModelVersion.feedback`: a feedback event that named the version. `metrics` and
 * `incidents` are null once a later feedback of the deployment replaced them.
 */
export type ModelFeedback = NodeCardOf<"ModelVersion">["feedback"][number];

export type HistoryEntry = NonNullable<G.HistoryQuery["history"]>["items"][number];

export type LineageAnswer = G.LineageQuery;

export type LineageData = NonNullable<G.LineageQuery["lineage"]>;

export type ApiEdge = LineageData["edges"][number];

export type ImpactAnswer = G.ImpactQuery;

/** One metric of one evaluation of a model version in the impact answer. */
export type EvaluationResult = NonNullable<G.ImpactQuery["impact"]>[number]["evaluationResults"][number];

export type ComparedRun = G.CompareQuery["compare"]["runs"][number];

export type ScoredVersion = G.ScoredFragment;

export type EvaluationSet = NonNullable<G.BestQuery["bestModelVersion"]>["evaluationSets"][number];

export type DigestRun = G.DigestRunFieldsFragment;

export type DigestItem = G.DigestItemFieldsFragment;

export type EffectsAnswer = G.EffectsQuery["effects"];

/** One row of the effects table: a change and what it did over its one-change pairs. */
export type Effect = EffectsAnswer["effects"][number];

/** One pair of an effect: the earlier run and the later one that made the change. */
export type EffectPair = Effect["runs"][number];

/** LESSONS_QUERY's answer: the hits, best first, and whether more matched. */
export type LessonSearch = G.LessonsQuery["lessons"];

/** One hit of a lessons search: a node, with the texts of it that matched. */
export type LessonHit = LessonSearch["hits"][number];

/** What a lessons search may be kept to, as the API names it (`RUN`...). */
export type LessonKind = G.LessonKind;

/** COST_QUERY's answer: what a model version or an experiment cost. */
export type CostAnswer = G.CostQuery["cost"];

/** One run of a cost answer: its role, hours, accelerator-hours, lost work and storage. */
export type RunCost = CostAnswer["runs"][number];

/** The sums of a cost answer's runs, by role too. */
export type CostTotals = CostAnswer["totals"];

/** The base model version's cost and the share of it a cost answer carries (`includeBase`). */
export type BaseShare = NonNullable<CostAnswer["base"]>;

/** A model version's gain on a metric over the previous best, and the accelerator-hours per point (`metric`). */
export type CostGain = NonNullable<CostAnswer["gain"]>;

/** GUARDS_QUERY's answer: the three guard reports of a project's conventions. */
export type GuardsAnswer = G.GuardsQuery;

/** Metric names of a project that differ only in spelling, and the aliases declared. */
export type MetricLint = GuardsAnswer["lintMetrics"];

/** One group of metric names sharing a spelling-blind key. */
export type MetricGroup = MetricLint["groups"][number];

/** Per kind with a naming rule, the records whose names break it. */
export type NameLint = GuardsAnswer["lintNames"];

/** One kind's naming rule and the records that break it. */
export type NameRuleReport = NameLint["kinds"][number];

/** Outputs out of place, and URIs written by more than one job. */
export type Collisions = GuardsAnswer["collisions"];

/** SCALE_UP_QUERY's answer: a run beside the pilot it scales up. */
export type ScaleUpAnswer = G.ScaleUpQuery["scaleUp"];

/** One side of a scale-up answer: the pilot or the scale-up, with its resources. */
export type ScaleUpRun = ScaleUpAnswer["pilot"];

/** A setting that differs between the pilot and the scale-up (a resource or another). */
export type ScaleUpChange = ScaleUpAnswer["otherChanges"][number];

/** Whether the pilot's trend held at scale, for one metric both runs logged. */
export type MetricTrend = ScaleUpAnswer["metrics"][number];

/** CHECKPOINT_STAGES_QUERY's answer: a run's checkpoints compared stage by stage. */
export type CheckpointStagesAnswer = G.CheckpointStagesQuery["checkpointStages"];

/** One checkpoint of the run: step, save time, saved metrics, how many evaluations. */
export type CheckpointStage = CheckpointStagesAnswer["checkpoints"][number];

/** One metric of one checkpoint evaluation, with its change from the previous checkpoint. */
export type StageResult = CheckpointStagesAnswer["results"][number];

