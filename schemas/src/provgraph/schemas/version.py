"""provgraph's release version, shared by every part (they all stand on the contract)."""

__version__ = "0.1.0"
