"""The rules engine: cards, the deal, contracts, the ruleset, play, replay and scoring,
and the played game's typed values they take (``model``: Record, HandRecord, Score).

The bottom layer of the auditor: it imports nothing of ``audit`` but ``audit.errors``.
"""

__all__: list[str] = []
