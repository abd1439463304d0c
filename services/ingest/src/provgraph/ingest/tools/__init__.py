"""The audit and operator tools: replay, verify and the graph hash, the dead-letter commands."""
