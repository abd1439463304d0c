"""The ground floor every provgraph service stands on: errors, settings, the event log."""
