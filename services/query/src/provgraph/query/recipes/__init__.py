"""Provenance answers built on the read model: reproduce, diff, trace and whois."""
