"""provgraph.client."""
