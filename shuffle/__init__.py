"""Commit-reveal cryptographic shuffles (see docs/shuffle-protocol.md)."""
