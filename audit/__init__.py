"""Cayenne Fair-Play: the rules engine, the scorer, the record and the auditor.

The subpackages are layered, each importing only those before it (tests/test_layers.py
holds this): ``errors`` → ``rules`` (cards, deal, contract, play, replay, scoring) →
``record`` (model, codec, schema) → ``stacking`` → ``checks`` → ``report`` (text, and
HTML from Jinja templates) → ``native`` → ``auditor`` → ``tournament`` → (the service,
``api``) → ``cli``. Beside them, ``audit.log`` (the signed, append-only hand log)
depends only on ``errors``.
"""

from __future__ import annotations

__all__: list[str] = []

__version__ = "0.1.0"
