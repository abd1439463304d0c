/** The answer shapes of the documents in queries.ts (the parts the pages read). */

/** A JSON scalar value as the API sends it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The `NodeFields` fragment: common node fields and the name-like fields of its type. */
export interface NodeSummary {
  id: string;
  type: string;
  project: string | null;
  firstSeenAt: string | null;
  lastEventAt: string | null;
  deletedAt: string | null;
  placeholder: boolean;
  name?: string | null;
  version?: string | null;
  number?: number | null;
  key?: string | null;
  runNumber?: number | null;
  status?: string | null;
  step?: number | null;
  suite?: string | null;
  suiteVersion?: string | null;
  passed?: boolean | null;
  deploymentEnvironment?: string | null;
}

export interface Ref {
  id: string;
  name?: string | null;
  version?: string | null;
  runNumber?: number | null;
  status?: string | null;
  key?: string | null;
  step?: number | null;
}

export interface WhoisAnswer {
  search: NodeSummary[];
  exact: NodeSummary | null;
  byUri?: NodeSummary[];
  byChecksum?: NodeSummary[];
}

/** PROJECTS_QUERY's answer: the projects the token may read, by name. */
export interface ProjectsAnswer {
  projects: string[];
}

export interface ResumeLink {
  id: string;
  step: number | null;
  run: Ref | null;
}

/** RESUME_QUERY's answer: one more level of a run's resumed-from chain. */
export interface ResumeAnswer {
  node: { id: string; resumedFrom?: ResumeLink[] } | null;
}

export interface CheckpointInfo {
  id: string;
  step: number | null;
  epoch: number | null;
  uri: string | null;
  checksum: string | null;
  status: string | null;
  metrics: Json;
  saveSeconds: number | null;
}

/** One series of `Run.metricSeries`: a metric the run logged, downsampled, by step. */
export interface MetricSeries {
  name: string;
  points: { step: number; value: number }[];
}

/** `Run.resources`: the compute a run's `run.started` event recorded. */
export interface RunResources {
  numNodes: number | null;
  devicesPerNode: number | null;
  accelerator: string | null;
  parallelism: { name: string; degree: number }[];
  extra: Json;
}

/** One production incident of a feedback event. */
export interface FeedbackIncident {
  summary: string | null;
  severity: string | null;
  reference: string | null;
  occurredAt: string | null;
}

/**
 * One item of `ModelVersion.feedback`: a feedback event that named the version. `metrics` and
 * `incidents` are null once a later feedback of the deployment replaced them.
 */
export interface ModelFeedback {
  eventId: string;
  at: string;
  actor: string | null;
  principal: string | null;
  deployment: { id: string; name: string | null } | null;
  metrics: Json;
  incidents: FeedbackIncident[] | null;
}

export interface EnvironmentInfo {
  id: string;
  key: string | null;
  pythonVersion: string | null;
  packages: Json;
  frameworks: Json;
  image: { name: string | null; tag: string | null; digest: string | null } | null;
}

/** The node card answer: the summary plus the fields of its own type. */
export interface NodeCard extends NodeSummary {
  properties: Json;
  [field: string]: unknown;
}

export interface NodeAnswer {
  node: NodeCard | null;
}

export interface HistoryEntry {
  eventId: string;
  eventType: string;
  occurredAt: string;
  loggedAt: string | null;
  producer: string | null;
  actor: string | null;
  principal: string | null;
  subject: string | null;
  project: string;
}

export interface HistoryAnswer {
  history: { items: HistoryEntry[]; nextCursor: string | null } | null;
}

export interface ApiEdge {
  from: string;
  to: string;
  type: string;
  properties: Json;
}

export interface LineageData {
  root: NodeSummary;
  nodes: NodeSummary[];
  edges: ApiEdge[];
  truncated: boolean;
  depths: Json;
}

export interface LineageAnswer {
  lineage: LineageData | null;
}

export interface ImpactItem {
  node: NodeSummary;
  path: { nodes: { id: string; type: string }[]; edges: { from: string; to: string; type: string }[] };
}

export interface ImpactAnswer {
  root: NodeSummary | null;
  impact: ImpactItem[] | null;
  runs: { nodes: NodeSummary[]; truncated: boolean; depths: Json } | null;
}

export interface DiffAnswer {
  diff: Json;
}

export interface ReproduceAnswer {
  reproduce: Json;
}

export interface MetricDefinition {
  key: string;
  source: string;
  name: string;
  split: string | null;
  metric: string;
}

export interface SettingChange {
  kind: string;
  name: string;
  before: Json;
  after: Json;
}

export interface ComparedRun {
  id: string;
  number: number | null;
  name: string | null;
  experiment: string | null;
  status: string | null;
  conclusion: string | null;
  conclusionMissing: boolean;
  abortReason: string | null;
  error: { type: string | null; message: string | null } | null;
  params: { name: string; value: Json }[];
  inputs: { role: string; datasetVersion: string }[];
  environment: { id: string; image: string | null } | null;
  code: { repo: string | null; commit: string | null; dirty: boolean | null; entrypoint: string | null } | null;
  base: { id: string; type: string } | null;
  resumedFrom: { id: string; step: number | null; run: string | null }[];
  metrics: { key: string; value: number | null; step: number | null }[];
  startedAt: string | null;
  endedAt: string | null;
  durationS: number | null;
  check: {
    against: string | null;
    basis: string | null;
    flagged: boolean;
    unverifiable: string[];
    changes: SettingChange[];
  };
}

export interface Comparison {
  experiment: string | null;
  basis: string;
  baseline: string | null;
  sortBy: string | null;
  truncated: boolean;
  params: string[];
  flagged: string[];
  metrics: MetricDefinition[];
  runs: ComparedRun[];
}

export interface CompareAnswer {
  compare: Comparison;
}

export interface ScoredVersion {
  modelVersion: string;
  label: string | null;
  status: string | null;
  registeredAt: string;
  evaluation: string;
  evaluatedAt: string;
  value: number;
}

export interface EvaluationSet {
  datasets: string[];
  suite: string | null;
  suiteVersion: string | null;
  versions: number | null;
}

export interface BestAnswer {
  bestModelVersion: {
    model: string;
    metric: string;
    higherIsBetter: boolean;
    ambiguous: boolean;
    delta: number | null;
    message: string | null;
    truncated: boolean;
    diff: Json;
    evaluationSet: EvaluationSet | null;
    evaluationSets: EvaluationSet[];
    best: ScoredVersion | null;
    previousBest: ScoredVersion | null;
    ranking: ScoredVersion[];
  } | null;
}

export interface DigestRun {
  id: string;
  name: string | null;
  runNumber: number | null;
  experiment: string | null;
  status: string | null;
  person: string;
  personBasis: string;
  startedAt: string | null;
  endedAt: string | null;
  error: { type: string | null; message: string | null } | null;
}

export interface DigestItem {
  eventType: string;
  at: string;
  id: string | null;
  name: string | null;
  version: string | null;
  person: string;
  personBasis: string;
  toStatus: string | null;
  modelVersion: string | null;
}

export interface Digest {
  projects: string[];
  since: string;
  until: string;
  stalledAfterSeconds: number;
  personBasis: string;
  runsWithoutResources: number;
  truncated: boolean;
  markdown: string;
  people: {
    person: string;
    basis: string;
    started: { id: string }[];
    finished: { id: string }[];
    failed: { id: string }[];
    aborted: { id: string }[];
    running: { id: string }[];
  }[];
  stalled: { lastEventAt: string; idleSeconds: number; run: DigestRun }[];
  repeatedFailures: { experiment: string; failures: number; errors: string[]; runs: { id: string }[] }[];
  conclusionMissing: DigestRun[];
  datasetVersions: DigestItem[];
  modelVersions: DigestItem[];
  statusChanges: DigestItem[];
  deployments: DigestItem[];
  feedback: DigestItem[];
  acceleratorHoursByPerson: { key: string; acceleratorHours: number }[];
  acceleratorHoursByProject: { key: string; acceleratorHours: number }[];
}

export interface DigestAnswer {
  digest: Digest;
}
