"""Subcommands of the ``fairplay`` CLI, one module each."""
