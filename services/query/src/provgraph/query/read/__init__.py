"""The read model: its ports (`ports.py`, and one beside each `*_reads.py` adapter), its views
(`model.py`), the Neo4j readers each with its Cypher beside it, and `readers.Readers`, the one
bundle of them that the app, the command line and the tests assemble."""
