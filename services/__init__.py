"""provgraph: event-sourced lineage for ML and LLM training."""

__version__ = "0.1.0"
