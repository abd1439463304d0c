"""The `provgraph` command line (the top floor: it wires the services and the launcher)."""

from provgraph.cli.main import main

__all__ = ["main"]
