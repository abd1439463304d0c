"""The read model: its port (`ports.ReadModel`), its views, and the Neo4j reader with its Cypher."""
