"""The GraphQL layer: a thin strawberry schema over the read model."""
