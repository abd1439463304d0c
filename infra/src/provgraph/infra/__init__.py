"""Local infrastructure: Kafka and Neo4j as JVM processes, started from Maven Central artifacts."""
