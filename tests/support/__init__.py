"""Helpers shared by unit, integration and e2e tests (workloads, stories, a served app)."""
