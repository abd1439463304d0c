"""Errors of the local launcher: each says what went wrong and what to do."""


class InfraError(Exception):
    """Root of every launcher error; the CLI prints it and exits non-zero."""


class MissingToolError(InfraError):
    """Java or Maven is not installed or not on PATH."""


class FetchError(InfraError):
    """Maven could not resolve an artifact from Maven Central."""


class PortInUseError(InfraError):
    """A port the launcher needs is taken by a process it did not start."""


class StartupError(InfraError):
    """A service did not become ready; the message carries the tail of its log."""
