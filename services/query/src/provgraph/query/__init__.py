"""provgraph.query."""
