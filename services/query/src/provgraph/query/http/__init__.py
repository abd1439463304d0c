"""The HTTP room: the FastAPI app, Marquez-compatible REST, the guarded Cypher endpoint, probes."""
