"""The projector process: the event log folded into Neo4j with exactly-once effect (`loop`),
wired and run by `run`."""
