"""Cayenne Fair-Play: the rules engine, the scorer, the record and the auditor.

The subpackages are layered: ``cards`` → ``deal``/``contract`` → ``play`` →
``replay``/``scoring`` → ``record`` → the checks and the report. ``audit.log`` holds
the signed, append-only hand log.
"""

from __future__ import annotations

__all__: list[str] = []

__version__ = "0.1.0"
