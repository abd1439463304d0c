"""Every Cypher query of the query service, by area (one package: the only place Cypher lives)."""
