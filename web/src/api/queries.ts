/**
 * Every GraphQL document the explorer sends. They live here only, so the validation test
 * (queries.test.ts) checks each of them against schema.graphql, and GraphQL Code Generator
 * (codegen.ts) writes the types of their answers and variables into generated.ts.
 */

import type * as G from "./generated";

/**
 * A document, typed with its answer and its variables as generated.ts has them: `request` and
 * `useQuery` take both from the document, so a page reads an answer as its document asks it.
 */
export type TypedDocument<TAnswer, TVariables> = string & {
  readonly __answer?: TAnswer;
  readonly __variables?: TVariables;
};

/** The text of a document, with the generated types of its answer and variables. */
function typed<TAnswer, TVariables>(text: string): TypedDocument<TAnswer, TVariables> {
  return text as TypedDocument<TAnswer, TVariables>;
}

/** The fields every node answer carries, plus a name to show where its type has one. */
const NODE_FIELDS = /* GraphQL */ `
  fragment NodeFields on Node {
    id
    type
    project
    firstSeenAt
    lastEventAt
    deletedAt
    placeholder
    ... on Dataset { name }
    ... on DatasetVersion { name version }
    ... on Experiment { number key }
    ... on Run { name runNumber status }
    ... on Checkpoint { step status }
    ... on Model { name }
    ... on ModelVersion { name version status }
    ... on Evaluation { suite suiteVersion passed }
    ... on Deployment { name deploymentEnvironment: environment status }
    ... on Environment { key }
  }
`;

/** A checkpoint a run resumed from, and the run that saved it. */
const RESUME_LINK_FIELDS = /* GraphQL */ `
  fragment ResumeLinkFields on Checkpoint {
    id
    step
    run { id name runNumber }
  }
`;

/**
 * Search by name or id (within a project when one is chosen), by exact id, and by file URI or
 * checksum, in one round trip.
 */
export const WHOIS_QUERY = typed<G.WhoisQuery, G.WhoisQueryVariables>(/* GraphQL */ `
  query Whois(
    $text: String!
    $id: ID!
    $types: [NodeType!]
    $project: String
    $uri: String
    $checksum: String
    $byUri: Boolean!
    $byChecksum: Boolean!
    $byId: Boolean!
  ) {
    search(text: $text, types: $types, first: 100, project: $project) { ...NodeFields }
    exact: node(id: $id) @include(if: $byId) { ...NodeFields }
    byUri: artifact(uri: $uri) @include(if: $byUri) { ...NodeFields }
    byChecksum: artifact(checksum: $checksum) @include(if: $byChecksum) { ...NodeFields }
  }
  ${NODE_FIELDS}
`);

/** The projects the token may read. */
export const PROJECTS_QUERY = typed<G.ProjectsQuery, G.ProjectsQueryVariables>(/* GraphQL */ `
  query Projects {
    projects
  }
`);

/** One node's archive card: every typed field worth showing, by type. */
export const NODE_QUERY = typed<G.NodeCardQuery, G.NodeCardQueryVariables>(/* GraphQL */ `
  query NodeCard($id: ID!, $asOf: String) {
    node(id: $id, asOf: $asOf) {
      __typename
      ...NodeFields
      properties
      ... on DatasetVersion {
        storageUri checksum recordCount changeNote previousVersion
        cleaningRules cleaningRuleNames split qualityGates
        sourceUri sourceLicence sourceObtainedBy sourceComplianceNote
        dataset { id name versions { id version } }
        derivedFrom { transform datasetVersion { id name version } }
        derivatives { id name version }
        producedBy { id name runNumber status }
        usedBy { role consumer { ...NodeFields } }
      }
      ... on Run {
        runNumberClaimed startedAt endedAt params finalMetrics finalStep conclusion
        interruptionCause resumedAtStep abortReason
        code { repo commit dirty }
        error { type message traceback }
        resources { numNodes devicesPerNode accelerator parallelism { name degree } extra }
        metricSeries { name points { step value } }
        experiment { id number key goal }
        inputs { role datasetVersion { id name version } }
        environment { id key pythonVersion packages frameworks image { name tag digest } }
        startedFrom { ...NodeFields }
        resumedFrom { ...ResumeLinkFields }
        scaledFrom { id name }
        scaleUps { id name }
        checkpoints { id step epoch uri checksum status metrics saveSeconds }
        outputs { id name version }
        modelVersions { id name version status }
      }
      ... on ModelVersion {
        statusReason uri checksum description fitFor registeredAt validation validationPassed
        model { id name }
        producedBy { id name runNumber status inputs { role datasetVersion { id name version } } }
        exportedFrom { id step run { id name } }
        evaluations {
          id suite suiteVersion passed metrics evaluatedAt
          datasets { id name version }
        }
        deployments { id name endpoint deploymentEnvironment: environment status }
        fineTunes { id name runNumber status }
        feedback(first: 20) {
          eventId at actor principal metrics
          deployment { id name }
          incidents { summary severity reference occurredAt }
        }
      }
      ... on Checkpoint {
        epoch uri checksum sizeBytes saveSeconds metrics
        run { id name runNumber }
        resumedBy { id name runNumber }
        exportedAs { id name version }
        evaluations { id }
      }
      ... on Experiment {
        goal codeName
        runs { id name runNumber status }
      }
      ... on Dataset { description versions { id version } }
      ... on Model { versions { id version status } }
      ... on Evaluation {
        metrics evaluatedAt
        modelVersion { id name version }
        checkpoint { id step }
        datasets { id name version }
      }
      ... on Deployment {
        endpoint createdAt retiredAt
        serves { trafficShare modelVersion { id name version } }
        runtime { id key }
      }
      ... on Environment {
        pythonVersion packages frameworks
        image { name tag digest }
        basedOn { id key }
        runs { id name runNumber status }
      }
    }
  }
  ${NODE_FIELDS}
  ${RESUME_LINK_FIELDS}
`);

/**
 * One more link of a run's resumed-from chain: the checkpoints the run `id` resumed from and
 * the runs that saved them. The card asks it level by level (the chain's nesting in one
 * document would be over the service's cost limit).
 */
export const RESUME_QUERY = typed<G.ResumedFromQuery, G.ResumedFromQueryVariables>(/* GraphQL */ `
  query ResumedFrom($id: ID!) {
    node(id: $id) {
      id
      ... on Run { resumedFrom { ...ResumeLinkFields } }
    }
  }
  ${RESUME_LINK_FIELDS}
`);

/** A node's events, newest first, with actors and principals. */
export const HISTORY_QUERY = typed<G.HistoryQuery, G.HistoryQueryVariables>(/* GraphQL */ `
  query History($id: ID!, $first: Int, $after: String) {
    history(id: $id, first: $first, after: $after) {
      items { eventId eventType occurredAt loggedAt producer actor principal subject project }
      nextCursor
    }
  }
`);

/** The lineage graph, with exactly the arguments of the route (and of an expand). */
export const LINEAGE_QUERY = typed<G.LineageQuery, G.LineageQueryVariables>(/* GraphQL */ `
  query Lineage(
    $id: ID!
    $direction: Direction!
    $depth: Int
    $types: [NodeType!]
    $asOf: String
    $limit: Int
  ) {
    lineage(id: $id, direction: $direction, depth: $depth, types: $types, asOf: $asOf, limit: $limit) {
      root { ...NodeFields }
      nodes { ...NodeFields }
      edges { from to type properties }
      truncated
      depths
    }
  }
  ${NODE_FIELDS}
`);

/** What depends on a node: live deployments and model versions (with a path), and the runs. */
export const IMPACT_QUERY = typed<G.ImpactQuery, G.ImpactQueryVariables>(/* GraphQL */ `
  query Impact($id: ID!, $asOf: String) {
    root: node(id: $id) { ...NodeFields }
    impact(id: $id, asOf: $asOf) {
      node { ...NodeFields }
      path { nodes { id type } edges { from to type } }
      evaluationResults { evaluation suite suiteVersion datasets metric value passed evaluatedAt }
    }
    runs: lineage(id: $id, direction: DOWNSTREAM, depth: 20, types: [RUN], asOf: $asOf) {
      nodes { ...NodeFields }
      truncated
      depths
    }
  }
  ${NODE_FIELDS}
`);

/** What changed between two runs or two model versions. */
export const DIFF_QUERY = typed<G.DiffQuery, G.DiffQueryVariables>(/* GraphQL */ `
  query Diff($a: ID!, $b: ID!) {
    diff(a: $a, b: $b)
  }
`);

/** The recipe of a model version or checkpoint. */
export const REPRODUCE_QUERY = typed<G.ReproduceQuery, G.ReproduceQueryVariables>(/* GraphQL */ `
  query Reproduce($id: ID!) {
    reproduce(id: $id)
  }
`);

/** A model version's dossier: its title, the document as HTML, and what the record misses. */
export const DOSSIER_QUERY = typed<G.DossierQuery, G.DossierQueryVariables>(/* GraphQL */ `
  query Dossier($id: ID!) {
    dossier(id: $id) { id title html gaps }
  }
`);

/** An experiment's runs side by side, with the one-change-at-a-time check. */
export const COMPARE_QUERY = typed<G.CompareQuery, G.CompareQueryVariables>(/* GraphQL */ `
  query Compare($experiment: ID!, $all: Boolean!, $sortBy: String) {
    compare(experiment: $experiment, all: $all, sortBy: $sortBy) {
      experiment basis baseline sortBy truncated params flagged
      metrics { key source name split metric }
      runs {
        id number name experiment status conclusion conclusionMissing abortReason
        error { type message }
        params { name value }
        inputs { role datasetVersion }
        environment { id image }
        code { repo commit dirty entrypoint }
        base { id type }
        resumedFrom { id step run }
        metrics { key value step }
        startedAt endedAt durationS
        check { against basis flagged unverifiable changes { kind name before after } }
      }
    }
  }
`);

/** The best version of a model by one metric on one evaluation set. */
export const BEST_QUERY = typed<G.BestQuery, G.BestQueryVariables>(/* GraphQL */ `
  query Best($model: String!, $metric: String!, $project: String, $datasets: [ID!], $higherIsBetter: Boolean!) {
    bestModelVersion(
      model: $model
      metric: $metric
      project: $project
      datasets: $datasets
      higherIsBetter: $higherIsBetter
    ) {
      model metric higherIsBetter ambiguous delta message truncated diff
      evaluationSet { datasets suite suiteVersion versions }
      evaluationSets { datasets suite suiteVersion versions }
      best { ...Scored }
      previousBest { ...Scored }
      ranking { ...Scored }
    }
  }
  fragment Scored on ScoredVersion {
    modelVersion label status registeredAt evaluation evaluatedAt value
  }
`);

/** The weekly digest of one project. */
export const DIGEST_QUERY = typed<G.DigestQuery, G.DigestQueryVariables>(/* GraphQL */ `
  query Digest($projects: [String!]!, $since: String!, $until: String) {
    digest(projects: $projects, since: $since, until: $until) {
      projects since until stalledAfterSeconds personBasis runsWithoutResources truncated markdown
      people {
        person basis
        started { id }
        finished { id }
        failed { id }
        aborted { id }
        running { id }
      }
      stalled { lastEventAt idleSeconds run { ...DigestRunFields } }
      repeatedFailures { experiment failures errors runs { id } }
      conclusionMissing { ...DigestRunFields }
      datasetVersions { ...DigestItemFields }
      modelVersions { ...DigestItemFields }
      statusChanges { ...DigestItemFields }
      deployments { ...DigestItemFields }
      feedback { ...DigestItemFields }
      acceleratorHoursByPerson { key acceleratorHours }
      acceleratorHoursByProject { key acceleratorHours }
    }
  }
  fragment DigestRunFields on DigestRun {
    id name runNumber experiment status person personBasis startedAt endedAt
    error { type message }
  }
  fragment DigestItemFields on DigestItem {
    eventType at id name version person personBasis toStatus modelVersion
  }
`);

/**
 * What worked in a project: its one-change pairs grouped by what changed, with the change of
 * one metric over each group's pairs, its failures, and the pairs themselves.
 */
export const EFFECTS_QUERY = typed<G.EffectsQuery, G.EffectsQueryVariables>(/* GraphQL */ `
  query Effects($project: String!, $metric: String!, $since: String, $groupBy: EffectGrouping!) {
    effects(project: $project, metric: $metric, since: $since, groupBy: $groupBy) {
      project since groupBy runsRead truncated pairs flaggedPairs repeatPairs
      metric { key source name split metric }
      effects {
        kind name label before after factor
        pairs measured meanDelta spread minDelta maxDelta failed running
        failures { error count }
        runs { experiment before after status delta startedAt }
      }
    }
  }
`);

/**
 * Lessons: what earlier attempts concluded (goals, conclusions, errors, abort reasons,
 * descriptions, change notes, incidents), by the full-text index, best first, each hit with the
 * texts that matched; kept to a project, kinds, a status, a metric condition, a param, a dataset
 * version used.
 */
export const LESSONS_QUERY = typed<G.LessonsQuery, G.LessonsQueryVariables>(/* GraphQL */ `
  query Lessons(
    $text: String!
    $project: String
    $kinds: [LessonKind!]
    $status: String
    $metric: String
    $param: String
    $uses: ID
  ) {
    lessons(
      text: $text
      project: $project
      kinds: $kinds
      status: $status
      metric: $metric
      param: $param
      uses: $uses
      first: 20
    ) {
      text query truncated candidates
      hits {
        id type project name status experiment score
        matches { field text }
      }
    }
  }
`);

/**
 * What a model version or an experiment cost: each run's hours, accelerator-hours,
 * interruptions, the work they lost and its checkpoint storage; the sums by role; with
 * `includeBase`, the base model version's share and the sums with it.
 */
export const COST_QUERY = typed<G.CostQuery, G.CostQueryVariables>(/* GraphQL */ `
  query Cost($id: ID!, $includeBase: Boolean!, $metric: String, $datasets: [ID!], $suite: String, $higherIsBetter: Boolean!) {
    cost(id: $id, includeBase: $includeBase, metric: $metric, datasets: $datasets, suite: $suite, higherIsBetter: $higherIsBetter) {
      target kind run experiment truncated
      runs {
        id name status role hours accelerators acceleratorHours interruptions
        lostHours lostAcceleratorHours checkpointBytes checkpointsWithoutSize checkpointsCapped
      }
      totals {
        hours acceleratorHours lostHours lostAcceleratorHours checkpointBytes runsWithoutResources
        byRole { role runs hours acceleratorHours }
      }
      base {
        modelVersion run hours acceleratorHours users share shareHours shareAcceleratorHours
        runsWithoutResources
      }
      withBase { hours acceleratorHours }
      gain {
        metric higherIsBetter value gain acceleratorHoursPerPoint message
        evaluationSet { datasets suite suiteVersion }
        previousBest { version value }
      }
    }
  }
`);

/**
 * The guards of a project's conventions: its metric names spelled more ways than one (with the
 * declared aliases and those still to declare), the records whose names break their kind's
 * naming rule (with the name the rule builds), and its outputs out of place or at a URI written
 * by more than one job.
 */
export const GUARDS_QUERY = typed<G.GuardsQuery, G.GuardsQueryVariables>(/* GraphQL */ `
  query Guards($project: String!) {
    lintMetrics(project: $project) {
      project metrics
      aliases { alias canonical }
      groups { key canonical settled undeclared names { name records aliasOf } }
    }
    lintNames(project: $project) {
      project enforced rules
      kinds { kind rule checked truncated breaks { id name problem suggestion } }
    }
    collisions(project: $project) {
      project storageRoots enforced checked truncated
      outOfPlace { id kind run experiment uri problem }
      shared { uri writers { id kind run experiment } }
    }
  }
`);

/**
 * A run beside the pilot it scales up: the resources of each and the scale factor, every other
 * setting that differs (flagged), and whether the pilot's metric trend held, metric by metric.
 */
export const SCALE_UP_QUERY = typed<G.ScaleUpQuery, G.ScaleUpQueryVariables>(/* GraphQL */ `
  query ScaleUp($run: ID!) {
    scaleUp(run: $run) {
      run flagged flag unverifiable trendHeld
      pilot { id name experiment runNumber status resources accelerators }
      scaleUp { id name experiment runNumber status resources accelerators }
      scale { factor changes { kind name before after } }
      otherChanges { kind name before after }
      metrics {
        name verdict why
        sharedSteps { start end }
        pilot { final { step value } trend { direction change slopePer1kSteps } }
        scaleUp { final { step value } trend { direction change slopePer1kSteps } }
      }
    }
  }
`);

/**
 * A run's checkpoints stage by stage: each checkpoint with its step, save time and saved metrics;
 * each metric of their evaluations with its change from the previous checkpoint on the same set.
 */
export const CHECKPOINT_STAGES_QUERY = typed<G.CheckpointStagesQuery, G.CheckpointStagesQueryVariables>(/* GraphQL */ `
  query CheckpointStages($run: ID!, $metric: String) {
    checkpointStages(run: $run, metric: $metric) {
      run metric total limit truncated
      checkpoints { id step savedAt status metrics { name value } evaluations }
      results {
        checkpoint step evaluation suite suiteVersion evaluationSet passed evaluatedAt
        metric value previousCheckpoint previousStep previousValue change
      }
    }
  }
`);

/** Every document, by name: what the validation test walks. */
export const ALL_QUERIES: Readonly<Record<string, string>> = {
  WHOIS_QUERY,
  PROJECTS_QUERY,
  NODE_QUERY,
  RESUME_QUERY,
  HISTORY_QUERY,
  LINEAGE_QUERY,
  IMPACT_QUERY,
  DIFF_QUERY,
  REPRODUCE_QUERY,
  DOSSIER_QUERY,
  COMPARE_QUERY,
  BEST_QUERY,
  DIGEST_QUERY,
  EFFECTS_QUERY,
  LESSONS_QUERY,
  COST_QUERY,
  GUARDS_QUERY,
  SCALE_UP_QUERY,
  CHECKPOINT_STAGES_QUERY,
};
