"""The auditor's checks, one module per topic.

Each module exposes ``check(ctx: AuditContext) -> list[Finding]``. The replay
(:mod:`audit.rules.replay`) has already played every hand once; checks read its outcomes
from the context instead of replaying again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.rules.model import Record
from audit.rules.replay import HandOutcome
from audit.rules.scoring import HandScore

__all__ = ["AuditContext"]


@dataclass(slots=True)
class AuditContext:
    record: Record
    outcomes: list[HandOutcome]
    alpha: float = 0.001
    true_scores: list[HandScore | None] | None = None
    """The score of each hand by the rules from the record's start, when computed."""
    stacking: dict[int, dict[str, Any]] = field(default_factory=dict)
    """hand number -> the report's ``stacking`` object, filled by the stacking check."""
