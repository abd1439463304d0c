"""OpenLineage compatibility: the ``/api/v1/lineage`` endpoints, spec validation, wrapping.

`wrap` turns an OpenLineage event into a provgraph event; `decode_log_value` reads a record
of the event log that may be a raw OpenLineage event (OpenLineage's Kafka transport).
The router lives in `provgraph.ingest.openlineage.routes` (the ingest app includes it).
"""

from provgraph.ingest.openlineage.names import NamespaceMap
from provgraph.ingest.openlineage.spec import SPEC_VERSION, SpecError, spec_errors
from provgraph.ingest.openlineage.wrap import WrapError, decode_log_value, wrap

__all__ = [
    "SPEC_VERSION",
    "NamespaceMap",
    "SpecError",
    "WrapError",
    "decode_log_value",
    "spec_errors",
    "wrap",
]
