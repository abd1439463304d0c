"""The documents of the answer-identity test (`test_lineage_answers_unchanged.py`): the
explorer's lineage, impact and node-card documents (as `web/src/api/queries.ts` has them; the
lineage document's argument list wrapped at 100 columns), the
benchmark's, and a few more that reach every node type's fields through a traversal.

Each case is (name, document, variables, scope projects or None for every project).
"""

from __future__ import annotations

from typing import Any

NODE_FIELDS = """
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
"""

RESUME_LINK_FIELDS = """
  fragment ResumeLinkFields on Checkpoint {
    id
    step
    run { id name runNumber }
  }
"""

LINEAGE_QUERY = (
    """
  query Lineage(
    $id: ID!
    $direction: Direction!
    $depth: Int
    $types: [NodeType!]
    $asOf: String
    $limit: Int
  ) {
    lineage(id: $id, direction: $direction, depth: $depth, types: $types, asOf: $asOf,
            limit: $limit) {
      root { ...NodeFields }
      nodes { ...NodeFields }
      edges { from to type properties }
      truncated
      depths
    }
  }
"""
    + NODE_FIELDS
)

IMPACT_QUERY = (
    """
  query Impact($id: ID!, $asOf: String) {
    root: node(id: $id) { ...NodeFields }
    impact(id: $id, asOf: $asOf) {
      node { ...NodeFields }
      path { nodes { id type } edges { from to type } }
    }
    runs: lineage(id: $id, direction: DOWNSTREAM, depth: 20, types: [RUN], asOf: $asOf) {
      nodes { ...NodeFields }
      truncated
      depths
    }
  }
"""
    + NODE_FIELDS
)

NODE_QUERY = (
    """
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
        startedAt endedAt params finalMetrics finalStep conclusion
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
"""
    + NODE_FIELDS
    + RESUME_LINK_FIELDS
)

# The benchmark's documents (benchmarks/bench_queries.py).
BENCH_LINEAGE = """
query($id: ID!, $depth: Int!) {
  lineage(id: $id, direction: %s, depth: $depth) {
    root { id } nodes { id } edges { from to type } truncated depths
  }
}"""
BENCH_IMPACT = "query($id: ID!) { impact(id: $id) { node { id } path { nodes { id } } } }"

# Every scalar field of every type, a neighbour field or two, through lineage, path and impact.
EVERY_FIELD = """
fragment Every on Node {
  __typename id type project firstSeenAt lastEventAt deletedAt placeholder properties
  ... on Dataset { name description }
  ... on DatasetVersion {
    name version storageUri checksum recordCount changeNote previousVersion cleaningRules
    cleaningRuleNames split qualityGates sourceUri sourceLicence sourceObtainedBy
    sourceComplianceNote derivedFrom { transform datasetVersion { id } }
  }
  ... on Experiment { number key goal codeName }
  ... on Run {
    name runNumber status startedAt endedAt params finalMetrics finalStep conclusion
    interruptionCause resumedAtStep abortReason code { repo commit dirty }
    inputs { role datasetVersion { id } }
  }
  ... on Checkpoint { step epoch uri checksum sizeBytes saveSeconds metrics status }
  ... on Model { name }
  ... on ModelVersion {
    name version status statusReason uri checksum description fitFor registeredAt validation
    validationPassed model { id }
  }
  ... on Evaluation { suite suiteVersion passed metrics evaluatedAt }
  ... on Deployment {
    name endpoint environment status createdAt retiredAt serves { trafficShare }
  }
  ... on Environment { key pythonVersion packages frameworks image { name tag digest } }
}
"""
EVERY_LINEAGE = (
    """
query($id: ID!, $direction: Direction!, $depth: Int) {
  lineage(id: $id, direction: $direction, depth: $depth) {
    root { ...Every } nodes { ...Every } edges { from to type properties } truncated depths
  }
}"""
    + EVERY_FIELD
)
# The scalar fields only (with neighbour lists under two lists, a document costs too much).
SCALARS = """
fragment Scalars on Node {
  __typename id type project firstSeenAt lastEventAt deletedAt placeholder properties
  ... on Dataset { name description }
  ... on DatasetVersion {
    name version storageUri checksum recordCount changeNote previousVersion cleaningRules
    cleaningRuleNames split qualityGates sourceUri sourceLicence sourceObtainedBy
    sourceComplianceNote
  }
  ... on Experiment { number key goal codeName }
  ... on Run {
    name runNumber status startedAt endedAt params finalMetrics finalStep conclusion
    interruptionCause resumedAtStep abortReason
  }
  ... on Checkpoint { step epoch uri checksum sizeBytes saveSeconds metrics status }
  ... on Model { name }
  ... on ModelVersion {
    name version status statusReason uri checksum description fitFor registeredAt validation
    validationPassed
  }
  ... on Evaluation { suite suiteVersion passed metrics evaluatedAt }
  ... on Deployment { name endpoint environment status createdAt retiredAt }
  ... on Environment { key pythonVersion packages frameworks }
}
"""
# A few fields of each kind (under two lists the cost limit allows ~40 fields a node).
BRIEF = """
fragment Brief on Node {
  __typename id type placeholder properties firstSeenAt
  ... on DatasetVersion { version recordCount cleaningRules }
  ... on Run { runNumber status params }
  ... on Checkpoint { step sizeBytes }
  ... on ModelVersion { status fitFor validationPassed }
  ... on Deployment { environment }
}
"""
EVERY_IMPACT = (
    """
query($id: ID!, $asOf: String) {
  impact(id: $id, asOf: $asOf) {
    node { ...Scalars }
    path { nodes { ...Brief } edges { from to type properties } }
  }
}"""
    + SCALARS
    + BRIEF
)
EVERY_PATH = (
    """
query($a: ID!, $b: ID!) {
  path(from: $a, to: $b) { nodes { ...Brief } edges { from to type properties } }
}"""
    + BRIEF
)

Case = tuple[str, str, dict[str, Any], list[str] | None]


def cases(p: str) -> list[Case]:
    """The cases over the demo story projected under project `p`."""
    chat, base = f"model:{p}/chat-1b@1.1.0", f"model:{p}/base-1b@1.0.0"
    web1, web = f"dataset:{p}/web-corpus@v1", f"dataset:{p}/web-corpus"
    sft, forum = f"run:{p}-demo-sft-001", f"dataset:{p}/forum-dump@v1"
    lineage = [
        ("up", {"id": chat, "direction": "UPSTREAM", "depth": 20}),
        ("down", {"id": web1, "direction": "DOWNSTREAM", "depth": 10}),
        ("both", {"id": sft, "direction": "BOTH", "depth": 3}),
        ("dataset-up", {"id": web, "direction": "UPSTREAM", "depth": 5}),
        ("dataset-down", {"id": web, "direction": "DOWNSTREAM", "depth": 20}),
        ("types", {"id": chat, "direction": "UPSTREAM", "types": ["RUN", "DATASET_VERSION"]}),
        ("as-of", {"id": web1, "direction": "DOWNSTREAM", "asOf": "2026-01-05T13:00:00Z"}),
        ("truncated", {"id": web1, "direction": "DOWNSTREAM", "depth": 20, "limit": 4}),
        ("taken-down", {"id": forum, "direction": "DOWNSTREAM", "depth": 20}),
        ("missing", {"id": f"run:{p}-nowhere", "direction": "UPSTREAM"}),
        ("bad-depth", {"id": chat, "direction": "UPSTREAM", "depth": 99}),
    ]
    found: list[Case] = [(f"lineage {n}", LINEAGE_QUERY, v, None) for n, v in lineage]
    found += [
        ("lineage other project", LINEAGE_QUERY, lineage[0][1], [f"{p}-elsewhere"]),
        ("impact web-corpus@v1", IMPACT_QUERY, {"id": web1}, None),
        ("impact base", IMPACT_QUERY, {"id": base}, None),
        ("impact as-of", IMPACT_QUERY, {"id": web1, "asOf": "2026-01-05T13:00:00Z"}, None),
        ("impact forum", IMPACT_QUERY, {"id": forum}, None),
        ("impact missing", IMPACT_QUERY, {"id": f"run:{p}-nowhere"}, None),
        ("bench up", BENCH_LINEAGE % "UPSTREAM", {"id": chat, "depth": 10}, None),
        ("bench down", BENCH_LINEAGE % "DOWNSTREAM", {"id": web1, "depth": 10}, None),
        ("bench impact", BENCH_IMPACT, {"id": web1}, None),
        ("every up", EVERY_LINEAGE, {"id": chat, "direction": "UPSTREAM", "depth": 20}, None),
        ("every down", EVERY_LINEAGE, {"id": web1, "direction": "DOWNSTREAM", "depth": 20}, None),
        ("every both", EVERY_LINEAGE, {"id": sft, "direction": "BOTH", "depth": 2}, None),
        ("every impact", EVERY_IMPACT, {"id": web1}, None),
        ("every path", EVERY_PATH, {"a": web1, "b": chat}, None),
    ]
    return found
