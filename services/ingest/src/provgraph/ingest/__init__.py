"""provgraph.ingest: events in, the graph out. Each folder is what one process runs.

- `http/`: the HTTP ingest service (routes, checks at ingest, probes, metrics); its process
  entry is `app` (``python -m provgraph.ingest.app``).
- `projector/`: the projector process (`provgraph projector`): the consumer loop on its ports,
  one batch's path, the Neo4j writer and its Cypher, the Kafka event source, dead letters.
- `tools/`: the audit and operator commands (`provgraph replay | verify | graph-hash |
  deadletters`), which reuse the projector's path; `cli` registers them and the projector.
- At the top, what more than one process shares: `settings`, `ports`, `projection/` (the
  pure fold), `openlineage/` (the spec and the wrap), `screening` (the ownership screen),
  `graphread` (the graph read back), `log_order` (one order across partitions).

Imports point from `tools/` to `projector/` to the top, and from `http/` to the top only.
"""
