"""provgraph.ingest."""
