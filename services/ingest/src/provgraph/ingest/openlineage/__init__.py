"""OpenLineage compatibility: spec validation and wrapping, for HTTP ingest and the projector.

`wrap` turns an OpenLineage event into a provgraph event; `decode_log_value` reads a record
of the event log that may be a raw OpenLineage event (OpenLineage's Kafka transport).
The ``/api/v1/lineage`` endpoints live in `provgraph.ingest.http.openlineage`.
"""

from provgraph.ingest.openlineage.names import NamespaceMap
from provgraph.ingest.openlineage.spec import SPEC_VERSION, spec_errors
from provgraph.ingest.openlineage.wrap import WrapError, decode_log_value, wrap

__all__ = [
    "SPEC_VERSION",
    "NamespaceMap",
    "WrapError",
    "decode_log_value",
    "spec_errors",
    "wrap",
]
