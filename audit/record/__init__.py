"""The record (cayenne-record/1): its model, its reader and writer (``codec``), the fast
loader, the shipped JSON Schema, PBN export and import, and the random record generator.

Above the rules engine (``audit.rules``); below the checks.
"""

__all__: list[str] = []
