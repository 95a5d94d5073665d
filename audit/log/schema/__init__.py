"""The JSON Schemas of the log's events (data files, no code)."""

__all__: list[str] = []
