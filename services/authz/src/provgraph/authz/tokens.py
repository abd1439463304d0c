"""Token text and its stored form: only ``sha256:<hex>`` of a token is ever kept."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "pgt_"


def new_token() -> str:
    """A fresh random token (256 bits): shown once, never stored."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def principal_name(name: str) -> str:
    """A principal name: ``user:``, ``group:`` or ``service:`` and a name; bare names are users."""
    return name if ":" in name else f"user:{name}"
