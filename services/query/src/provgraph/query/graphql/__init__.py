"""The GraphQL layer: a thin strawberry schema over the read model.

The root schema is `schema.py` (`make_router` is what the HTTP app mounts at /graphql); each
node type has its module (`data`, `runs`, `models`), with their fields declared by `fields.py`.
"""
