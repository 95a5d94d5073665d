"""The JSON Schema of the record, cayenne-record-1.json (a data file, no code)."""

__all__: list[str] = []
