"""The rules engine: cards, the deal, contracts, the ruleset, play, replay and scoring.

The bottom layer of the auditor: it imports nothing of ``audit`` but ``audit.errors``.
"""

__all__: list[str] = []
