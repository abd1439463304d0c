/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { Json } from './scalars';
/** UPSTREAM: towards sources (outgoing edges). */
export type Direction =
  | 'BOTH'
  | 'DOWNSTREAM'
  | 'UPSTREAM';

/** How changes of a numeric parameter are grouped. */
export type EffectGrouping =
  | 'FACTOR'
  | 'VALUE';

/** What a lessons search may be kept to. */
export type LessonKind =
  | 'DATASET'
  | 'DEPLOYMENT'
  | 'EXPERIMENT'
  | 'MODEL'
  | 'RUN';

/** The node types of the lineage graph. */
export type NodeType =
  | 'CHECKPOINT'
  | 'DATASET'
  | 'DATASET_VERSION'
  | 'DEPLOYMENT'
  | 'ENVIRONMENT'
  | 'EVALUATION'
  | 'EXPERIMENT'
  | 'MODEL'
  | 'MODEL_VERSION'
  | 'RUN';

/** The kind of a setting that differs between two runs. */
export type SettingKind =
  | 'BASE'
  | 'CODE'
  | 'ENVIRONMENT'
  | 'INPUT'
  | 'PARAM'
  | 'RESOURCES';

type NodeFields_Checkpoint_Fragment = { step: number | null, status: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_Dataset_Fragment = { name: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_DatasetVersion_Fragment = { name: string | null, version: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_Deployment_Fragment = { name: string | null, status: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean, deploymentEnvironment: string | null };

type NodeFields_Environment_Fragment = { key: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_Evaluation_Fragment = { suite: string | null, suiteVersion: string | null, passed: boolean | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_Experiment_Fragment = { number: number | null, key: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_Model_Fragment = { name: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_ModelVersion_Fragment = { name: string | null, version: string | null, status: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_OtherNode_Fragment = { id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

type NodeFields_Run_Fragment = { name: string | null, runNumber: number | null, status: string | null, id: string, type: string, project: string | null, firstSeenAt: string | null, lastEventAt: string | null, deletedAt: string | null, placeholder: boolean };

export type NodeFieldsFragment =
  | NodeFields_Checkpoint_Fragment
  | NodeFields_Dataset_Fragment
  | NodeFields_DatasetVersion_Fragment
  | NodeFields_Deployment_Fragment
  | NodeFields_Environment_Fragment
  | NodeFields_Evaluation_Fragment
  | NodeFields_Experiment_Fragment
  | NodeFields_Model_Fragment
  | NodeFields_ModelVersion_Fragment
  | NodeFields_OtherNode_Fragment
  | NodeFields_Run_Fragment
;

export type ResumeLinkFieldsFragment = { id: string, step: number | null, run: { id: string, name: string | null, runNumber: number | null } | null };

export type WhoisQueryVariables = Exact<{
  text: string;
  id: string | number;
  types?: Array<NodeType> | NodeType | null | undefined;
  project?: string | null | undefined;
  uri?: string | null | undefined;
  checksum?: string | null | undefined;
  byUri: boolean;
  byChecksum: boolean;
  byId: boolean;
}>;


export type WhoisQuery = { search: Array<
    | NodeFields_Checkpoint_Fragment
    | NodeFields_Dataset_Fragment
    | NodeFields_DatasetVersion_Fragment
    | NodeFields_Deployment_Fragment
    | NodeFields_Environment_Fragment
    | NodeFields_Evaluation_Fragment
    | NodeFields_Experiment_Fragment
    | NodeFields_Model_Fragment
    | NodeFields_ModelVersion_Fragment
    | NodeFields_OtherNode_Fragment
    | NodeFields_Run_Fragment
  >, exact?:
    | NodeFields_Checkpoint_Fragment
    | NodeFields_Dataset_Fragment
    | NodeFields_DatasetVersion_Fragment
    | NodeFields_Deployment_Fragment
    | NodeFields_Environment_Fragment
    | NodeFields_Evaluation_Fragment
    | NodeFields_Experiment_Fragment
    | NodeFields_Model_Fragment
    | NodeFields_ModelVersion_Fragment
    | NodeFields_OtherNode_Fragment
    | NodeFields_Run_Fragment
   | null, byUri?: Array<
    | NodeFields_Checkpoint_Fragment
    | NodeFields_Dataset_Fragment
    | NodeFields_DatasetVersion_Fragment
    | NodeFields_Deployment_Fragment
    | NodeFields_Environment_Fragment
    | NodeFields_Evaluation_Fragment
    | NodeFields_Experiment_Fragment
    | NodeFields_Model_Fragment
    | NodeFields_ModelVersion_Fragment
    | NodeFields_OtherNode_Fragment
    | NodeFields_Run_Fragment
  >, byChecksum?: Array<
    | NodeFields_Checkpoint_Fragment
    | NodeFields_Dataset_Fragment
    | NodeFields_DatasetVersion_Fragment
    | NodeFields_Deployment_Fragment
    | NodeFields_Environment_Fragment
    | NodeFields_Evaluation_Fragment
    | NodeFields_Experiment_Fragment
    | NodeFields_Model_Fragment
    | NodeFields_ModelVersion_Fragment
    | NodeFields_OtherNode_Fragment
    | NodeFields_Run_Fragment
  > };

export type ProjectsQueryVariables = Exact<{ [key: string]: never; }>;


export type ProjectsQuery = { projects: Array<string> };

export type NodeCardQueryVariables = Exact<{
  id: string | number;
  asOf?: string | null | undefined;
}>;


export type NodeCardQuery = { node:
    | (
      { __typename: 'Checkpoint', epoch: number | null, uri: string | null, checksum: string | null, sizeBytes: number | null, saveSeconds: number | null, metrics: Json | null, properties: Json, run: { id: string, name: string | null, runNumber: number | null } | null, resumedBy: Array<{ id: string, name: string | null, runNumber: number | null }>, exportedAs: Array<{ id: string, name: string | null, version: string | null }>, evaluations: Array<{ id: string }> }
      & NodeFields_Checkpoint_Fragment
    )
    | (
      { __typename: 'Dataset', description: string | null, properties: Json, versions: Array<{ id: string, version: string | null }> }
      & NodeFields_Dataset_Fragment
    )
    | (
      { __typename: 'DatasetVersion', storageUri: string | null, checksum: string | null, recordCount: number | null, changeNote: string | null, previousVersion: string | null, cleaningRules: Json | null, cleaningRuleNames: Array<string>, split: Json | null, qualityGates: Json | null, sourceUri: string | null, sourceLicence: string | null, sourceObtainedBy: string | null, sourceComplianceNote: string | null, properties: Json, dataset: { id: string, name: string | null, versions: Array<{ id: string, version: string | null }> } | null, derivedFrom: Array<{ transform: string | null, datasetVersion: { id: string, name: string | null, version: string | null } }>, derivatives: Array<{ id: string, name: string | null, version: string | null }>, producedBy: { id: string, name: string | null, runNumber: number | null, status: string | null } | null, usedBy: Array<{ role: string | null, consumer:
          | NodeFields_Checkpoint_Fragment
          | NodeFields_Dataset_Fragment
          | NodeFields_DatasetVersion_Fragment
          | NodeFields_Deployment_Fragment
          | NodeFields_Environment_Fragment
          | NodeFields_Evaluation_Fragment
          | NodeFields_Experiment_Fragment
          | NodeFields_Model_Fragment
          | NodeFields_ModelVersion_Fragment
          | NodeFields_OtherNode_Fragment
          | NodeFields_Run_Fragment
         }> }
      & NodeFields_DatasetVersion_Fragment
    )
    | (
      { __typename: 'Deployment', endpoint: string | null, createdAt: string | null, retiredAt: string | null, properties: Json, serves: Array<{ trafficShare: number | null, modelVersion: { id: string, name: string | null, version: string | null } }>, runtime: { id: string, key: string | null } | null }
      & NodeFields_Deployment_Fragment
    )
    | (
      { __typename: 'Environment', pythonVersion: string | null, packages: Json | null, frameworks: Json | null, properties: Json, image: { name: string | null, tag: string | null, digest: string | null }, basedOn: { id: string, key: string | null } | null, runs: Array<{ id: string, name: string | null, runNumber: number | null, status: string | null }> }
      & NodeFields_Environment_Fragment
    )
    | (
      { __typename: 'Evaluation', metrics: Json | null, evaluatedAt: string | null, properties: Json, modelVersion: { id: string, name: string | null, version: string | null } | null, checkpoint: { id: string, step: number | null } | null, datasets: Array<{ id: string, name: string | null, version: string | null }> }
      & NodeFields_Evaluation_Fragment
    )
    | (
      { __typename: 'Experiment', goal: string | null, codeName: string | null, properties: Json, runs: Array<{ id: string, name: string | null, runNumber: number | null, status: string | null }> }
      & NodeFields_Experiment_Fragment
    )
    | (
      { __typename: 'Model', properties: Json, versions: Array<{ id: string, version: string | null, status: string | null }> }
      & NodeFields_Model_Fragment
    )
    | (
      { __typename: 'ModelVersion', statusReason: string | null, uri: string | null, checksum: string | null, description: string | null, fitFor: Array<string>, registeredAt: string | null, validation: Json | null, validationPassed: boolean | null, properties: Json, model: { id: string, name: string | null } | null, producedBy: { id: string, name: string | null, runNumber: number | null, status: string | null, inputs: Array<{ role: string | null, datasetVersion: { id: string, name: string | null, version: string | null } }> } | null, exportedFrom: { id: string, step: number | null, run: { id: string, name: string | null } | null } | null, evaluations: Array<{ id: string, suite: string | null, suiteVersion: string | null, passed: boolean | null, metrics: Json | null, evaluatedAt: string | null, datasets: Array<{ id: string, name: string | null, version: string | null }> }>, deployments: Array<{ id: string, name: string | null, endpoint: string | null, status: string | null, deploymentEnvironment: string | null }>, fineTunes: Array<{ id: string, name: string | null, runNumber: number | null, status: string | null }>, feedback: Array<{ eventId: string, at: string, actor: string | null, principal: string | null, metrics: Json | null, deployment: { id: string, name: string | null } | null, incidents: Array<{ summary: string | null, severity: string | null, reference: string | null, occurredAt: string | null }> | null }> }
      & NodeFields_ModelVersion_Fragment
    )
    | (
      { __typename: 'OtherNode', properties: Json }
      & NodeFields_OtherNode_Fragment
    )
    | (
      { __typename: 'Run', runNumberClaimed: number | null, startedAt: string | null, endedAt: string | null, params: Json | null, finalMetrics: Json | null, finalStep: number | null, conclusion: string | null, interruptionCause: string | null, resumedAtStep: number | null, abortReason: string | null, properties: Json, code: { repo: string | null, commit: string | null, dirty: boolean | null }, error: { type: string | null, message: string | null, traceback: string | null } | null, resources: { numNodes: number | null, devicesPerNode: number | null, accelerator: string | null, extra: Json, parallelism: Array<{ name: string, degree: number }> } | null, metricSeries: Array<{ name: string, points: Array<{ step: number, value: number }> }>, experiment: { id: string, number: number | null, key: string | null, goal: string | null } | null, inputs: Array<{ role: string | null, datasetVersion: { id: string, name: string | null, version: string | null } }>, environment: { id: string, key: string | null, pythonVersion: string | null, packages: Json | null, frameworks: Json | null, image: { name: string | null, tag: string | null, digest: string | null } } | null, startedFrom:
        | NodeFields_Checkpoint_Fragment
        | NodeFields_Dataset_Fragment
        | NodeFields_DatasetVersion_Fragment
        | NodeFields_Deployment_Fragment
        | NodeFields_Environment_Fragment
        | NodeFields_Evaluation_Fragment
        | NodeFields_Experiment_Fragment
        | NodeFields_Model_Fragment
        | NodeFields_ModelVersion_Fragment
        | NodeFields_OtherNode_Fragment
        | NodeFields_Run_Fragment
       | null, resumedFrom: Array<ResumeLinkFieldsFragment>, scaledFrom: { id: string, name: string | null } | null, scaleUps: Array<{ id: string, name: string | null }>, checkpoints: Array<{ id: string, step: number | null, epoch: number | null, uri: string | null, checksum: string | null, status: string | null, metrics: Json | null, saveSeconds: number | null }>, outputs: Array<{ id: string, name: string | null, version: string | null }>, modelVersions: Array<{ id: string, name: string | null, version: string | null, status: string | null }> }
      & NodeFields_Run_Fragment
    )
   | null };

export type ResumedFromQueryVariables = Exact<{
  id: string | number;
}>;


export type ResumedFromQuery = { node:
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string }
    | { id: string, resumedFrom: Array<ResumeLinkFieldsFragment> }
   | null };

export type HistoryQueryVariables = Exact<{
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type HistoryQuery = { history: { nextCursor: string | null, items: Array<{ eventId: string, eventType: string, occurredAt: string, loggedAt: string | null, producer: string | null, actor: string | null, principal: string | null, subject: string | null, project: string }> } | null };

export type LineageQueryVariables = Exact<{
  id: string | number;
  direction: Direction;
  depth?: number | null | undefined;
  types?: Array<NodeType> | NodeType | null | undefined;
  asOf?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type LineageQuery = { lineage: { truncated: boolean, depths: Json, root:
      | NodeFields_Checkpoint_Fragment
      | NodeFields_Dataset_Fragment
      | NodeFields_DatasetVersion_Fragment
      | NodeFields_Deployment_Fragment
      | NodeFields_Environment_Fragment
      | NodeFields_Evaluation_Fragment
      | NodeFields_Experiment_Fragment
      | NodeFields_Model_Fragment
      | NodeFields_ModelVersion_Fragment
      | NodeFields_OtherNode_Fragment
      | NodeFields_Run_Fragment
    , nodes: Array<
      | NodeFields_Checkpoint_Fragment
      | NodeFields_Dataset_Fragment
      | NodeFields_DatasetVersion_Fragment
      | NodeFields_Deployment_Fragment
      | NodeFields_Environment_Fragment
      | NodeFields_Evaluation_Fragment
      | NodeFields_Experiment_Fragment
      | NodeFields_Model_Fragment
      | NodeFields_ModelVersion_Fragment
      | NodeFields_OtherNode_Fragment
      | NodeFields_Run_Fragment
    >, edges: Array<{ from: string, to: string, type: string, properties: Json }> } | null };

export type ImpactQueryVariables = Exact<{
  id: string | number;
  asOf?: string | null | undefined;
}>;


export type ImpactQuery = { root:
    | NodeFields_Checkpoint_Fragment
    | NodeFields_Dataset_Fragment
    | NodeFields_DatasetVersion_Fragment
    | NodeFields_Deployment_Fragment
    | NodeFields_Environment_Fragment
    | NodeFields_Evaluation_Fragment
    | NodeFields_Experiment_Fragment
    | NodeFields_Model_Fragment
    | NodeFields_ModelVersion_Fragment
    | NodeFields_OtherNode_Fragment
    | NodeFields_Run_Fragment
   | null, impact: Array<{ node:
      | NodeFields_Checkpoint_Fragment
      | NodeFields_Dataset_Fragment
      | NodeFields_DatasetVersion_Fragment
      | NodeFields_Deployment_Fragment
      | NodeFields_Environment_Fragment
      | NodeFields_Evaluation_Fragment
      | NodeFields_Experiment_Fragment
      | NodeFields_Model_Fragment
      | NodeFields_ModelVersion_Fragment
      | NodeFields_OtherNode_Fragment
      | NodeFields_Run_Fragment
    , path: { nodes: Array<
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
        | { id: string, type: string }
      >, edges: Array<{ from: string, to: string, type: string }> }, evaluationResults: Array<{ evaluation: string, suite: string | null, suiteVersion: string | null, datasets: Array<string>, metric: string | null, value: Json | null, passed: boolean | null, evaluatedAt: string | null }> }> | null, runs: { truncated: boolean, depths: Json, nodes: Array<
      | NodeFields_Checkpoint_Fragment
      | NodeFields_Dataset_Fragment
      | NodeFields_DatasetVersion_Fragment
      | NodeFields_Deployment_Fragment
      | NodeFields_Environment_Fragment
      | NodeFields_Evaluation_Fragment
      | NodeFields_Experiment_Fragment
      | NodeFields_Model_Fragment
      | NodeFields_ModelVersion_Fragment
      | NodeFields_OtherNode_Fragment
      | NodeFields_Run_Fragment
    > } | null };

export type DiffQueryVariables = Exact<{
  a: string | number;
  b: string | number;
}>;


export type DiffQuery = { diff: Json | null };

export type ReproduceQueryVariables = Exact<{
  id: string | number;
}>;


export type ReproduceQuery = { reproduce: Json | null };

export type DossierQueryVariables = Exact<{
  id: string | number;
}>;


export type DossierQuery = { dossier: { id: string, title: string, html: string, gaps: Array<string> } | null };

export type CompareQueryVariables = Exact<{
  experiment: string | number;
  all: boolean;
  sortBy?: string | null | undefined;
}>;


export type CompareQuery = { compare: { experiment: string | null, basis: string, baseline: string | null, sortBy: string | null, truncated: boolean, params: Array<string>, flagged: Array<string>, metrics: Array<{ key: string, source: string, name: string, split: string | null, metric: string }>, runs: Array<{ id: string, number: number | null, name: string | null, experiment: string | null, status: string | null, conclusion: string | null, conclusionMissing: boolean, abortReason: string | null, startedAt: string | null, endedAt: string | null, durationS: number | null, error: { type: string | null, message: string | null } | null, params: Array<{ name: string, value: Json | null }>, inputs: Array<{ role: string, datasetVersion: string }>, environment: { id: string, image: string | null } | null, code: { repo: string | null, commit: string | null, dirty: boolean | null, entrypoint: string | null } | null, base: { id: string, type: string } | null, resumedFrom: Array<{ id: string, step: number | null, run: string | null }>, metrics: Array<{ key: string, value: number | null, step: number | null }>, check: { against: string | null, basis: string | null, flagged: boolean, unverifiable: Array<string>, changes: Array<{ kind: SettingKind, name: string, before: Json | null, after: Json | null }> } }> } };

export type BestQueryVariables = Exact<{
  model: string;
  metric: string;
  project?: string | null | undefined;
  datasets?: Array<string | number> | string | number | null | undefined;
  higherIsBetter: boolean;
}>;


export type BestQuery = { bestModelVersion: { model: string, metric: string, higherIsBetter: boolean, ambiguous: boolean, delta: number | null, message: string | null, truncated: boolean, diff: Json | null, evaluationSet: { datasets: Array<string>, suite: string | null, suiteVersion: string | null, versions: number | null } | null, evaluationSets: Array<{ datasets: Array<string>, suite: string | null, suiteVersion: string | null, versions: number | null }>, best: ScoredFragment | null, previousBest: ScoredFragment | null, ranking: Array<ScoredFragment> } | null };

export type ScoredFragment = { modelVersion: string, label: string | null, status: string | null, registeredAt: string, evaluation: string, evaluatedAt: string, value: number };

export type DigestQueryVariables = Exact<{
  projects: Array<string> | string;
  since: string;
  until?: string | null | undefined;
}>;


export type DigestQuery = { digest: { projects: Array<string>, since: string, until: string, stalledAfterSeconds: number, personBasis: string, runsWithoutResources: number, truncated: boolean, markdown: string, people: Array<{ person: string, basis: string, started: Array<{ id: string }>, finished: Array<{ id: string }>, failed: Array<{ id: string }>, aborted: Array<{ id: string }>, running: Array<{ id: string }> }>, stalled: Array<{ lastEventAt: string, idleSeconds: number, run: DigestRunFieldsFragment }>, repeatedFailures: Array<{ experiment: string, failures: number, errors: Array<string>, runs: Array<{ id: string }> }>, conclusionMissing: Array<DigestRunFieldsFragment>, datasetVersions: Array<DigestItemFieldsFragment>, modelVersions: Array<DigestItemFieldsFragment>, statusChanges: Array<DigestItemFieldsFragment>, deployments: Array<DigestItemFieldsFragment>, feedback: Array<DigestItemFieldsFragment>, acceleratorHoursByPerson: Array<{ key: string, acceleratorHours: number }>, acceleratorHoursByProject: Array<{ key: string, acceleratorHours: number }> } };

export type DigestRunFieldsFragment = { id: string, name: string | null, runNumber: number | null, experiment: string | null, status: string | null, person: string, personBasis: string, startedAt: string | null, endedAt: string | null, error: { type: string | null, message: string | null } | null };

export type DigestItemFieldsFragment = { eventType: string, at: string, id: string | null, name: string | null, version: string | null, person: string, personBasis: string, toStatus: string | null, modelVersion: string | null };

export type EffectsQueryVariables = Exact<{
  project: string;
  metric: string;
  since?: string | null | undefined;
  groupBy: EffectGrouping;
}>;


export type EffectsQuery = { effects: { project: string, since: string | null, groupBy: EffectGrouping, runsRead: number, truncated: boolean, pairs: number, flaggedPairs: number, repeatPairs: number, metric: { key: string, source: string, name: string, split: string | null, metric: string }, effects: Array<{ kind: SettingKind, name: string, label: string, before: Json | null, after: Json | null, factor: number | null, pairs: number, measured: number, meanDelta: number | null, spread: number | null, minDelta: number | null, maxDelta: number | null, failed: number, running: number, failures: Array<{ error: string, count: number }>, runs: Array<{ experiment: string | null, before: string, after: string, status: string | null, delta: number | null, startedAt: string | null }> }> } };

export type LessonsQueryVariables = Exact<{
  text: string;
  project?: string | null | undefined;
  kinds?: Array<LessonKind> | LessonKind | null | undefined;
  status?: string | null | undefined;
  metric?: string | null | undefined;
  param?: string | null | undefined;
  uses?: string | number | null | undefined;
}>;


export type LessonsQuery = { lessons: { text: string, query: string, truncated: boolean, candidates: number, hits: Array<{ id: string, type: string, project: string | null, name: string | null, status: string | null, experiment: string | null, score: number, matches: Array<{ field: string, text: string }> }> } };

export type CostQueryVariables = Exact<{
  id: string | number;
  includeBase: boolean;
  metric?: string | null | undefined;
  datasets?: Array<string | number> | string | number | null | undefined;
  suite?: string | null | undefined;
  higherIsBetter: boolean;
}>;


export type CostQuery = { cost: { target: string, kind: string, run: string | null, experiment: string | null, truncated: boolean, runs: Array<{ id: string, name: string | null, status: string | null, role: string, hours: number, accelerators: number | null, acceleratorHours: number | null, interruptions: number, lostHours: number, lostAcceleratorHours: number | null, checkpointBytes: number, checkpointsWithoutSize: number, checkpointsCapped: boolean }>, totals: { hours: number, acceleratorHours: number, lostHours: number, lostAcceleratorHours: number, checkpointBytes: number, runsWithoutResources: Array<string>, byRole: Array<{ role: string, runs: number, hours: number, acceleratorHours: number }> }, base: { modelVersion: string, run: string | null, hours: number, acceleratorHours: number, users: number, share: number, shareHours: number, shareAcceleratorHours: number, runsWithoutResources: Array<string> } | null, withBase: { hours: number, acceleratorHours: number } | null, gain: { metric: string, higherIsBetter: boolean, value: number | null, gain: number | null, acceleratorHoursPerPoint: number | null, message: string | null, evaluationSet: { datasets: Array<string>, suite: string | null, suiteVersion: string | null } | null, previousBest: { version: string, value: number } | null } | null } };

export type GuardsQueryVariables = Exact<{
  project: string;
}>;


export type GuardsQuery = { lintMetrics: { project: string, metrics: number, aliases: Array<{ alias: string, canonical: string }>, groups: Array<{ key: string, canonical: string, settled: boolean, undeclared: Array<string>, names: Array<{ name: string, records: number, aliasOf: string | null }> }> }, lintNames: { project: string, enforced: boolean, rules: number, kinds: Array<{ kind: string, rule: string, checked: number, truncated: boolean, breaks: Array<{ id: string, name: string | null, problem: string, suggestion: string | null }> }> }, collisions: { project: string, storageRoots: Array<string>, enforced: boolean, checked: number, truncated: boolean, outOfPlace: Array<{ id: string, kind: string, run: string | null, experiment: string | null, uri: string, problem: string }>, shared: Array<{ uri: string, writers: Array<{ id: string, kind: string, run: string | null, experiment: string | null }> }> } };

export type ScaleUpQueryVariables = Exact<{
  run: string | number;
}>;


export type ScaleUpQuery = { scaleUp: { run: string, flagged: boolean, flag: string | null, unverifiable: Array<string>, trendHeld: string, pilot: { id: string, name: string | null, experiment: string | null, runNumber: number | null, status: string | null, resources: Json, accelerators: number | null }, scaleUp: { id: string, name: string | null, experiment: string | null, runNumber: number | null, status: string | null, resources: Json, accelerators: number | null }, scale: { factor: number | null, changes: Array<{ kind: SettingKind, name: string, before: Json | null, after: Json | null }> }, otherChanges: Array<{ kind: SettingKind, name: string, before: Json | null, after: Json | null }>, metrics: Array<{ name: string, verdict: string, why: string, sharedSteps: { start: number, end: number } | null, pilot: { final: { step: number, value: number }, trend: { direction: string, change: number, slopePer1kSteps: number | null } | null }, scaleUp: { final: { step: number, value: number }, trend: { direction: string, change: number, slopePer1kSteps: number | null } | null } }> } };

export type CheckpointStagesQueryVariables = Exact<{
  run: string | number;
  metric?: string | null | undefined;
}>;


export type CheckpointStagesQuery = { checkpointStages: { run: string, metric: string | null, total: number, limit: number, truncated: boolean, checkpoints: Array<{ id: string, step: number | null, savedAt: string | null, status: string | null, evaluations: number, metrics: Array<{ name: string, value: Json | null }> }>, results: Array<{ checkpoint: string, step: number | null, evaluation: string, suite: string | null, suiteVersion: string | null, evaluationSet: Array<string>, passed: boolean | null, evaluatedAt: string | null, metric: string | null, value: Json | null, previousCheckpoint: string | null, previousStep: number | null, previousValue: Json | null, change: number | null }> } };
