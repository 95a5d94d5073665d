"""The record (cayenne-record/1): its reader and writer (``codec``, into the typed values
of :mod:`audit.rules.model`), the fast loader, the shipped JSON Schema, PBN export and
import, and the random record generator.

Above the rules engine (``audit.rules``); below the checks.
"""

__all__: list[str] = []
