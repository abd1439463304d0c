"""The HTTP ingest service: validate, authorise and append events to the log (`app`)."""
