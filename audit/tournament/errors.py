"""The tournament layer's errors (under the project's one root, :class:`FairplayError`)."""

from __future__ import annotations

from audit.errors import FairplayError

__all__ = ["EventError", "MovementError", "TournamentError"]


class TournamentError(FairplayError, ValueError):
    """An event, a movement or a result that the tournament layer cannot accept."""

    code = "TOURNAMENT_ERROR"


class MovementError(TournamentError):
    """A movement asked for with impossible sizes (no tables, too many rounds)."""

    code = "INVALID_MOVEMENT"


class EventError(TournamentError):
    """Records that are not one event: another ``event``, no ``round`` or ``table``, a
    seat without a name, duplicate and rubber hands mixed. ``field`` names the field."""

    code = "NOT_ONE_EVENT"

    def __init__(self, source: str, field: str, problem: str) -> None:
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {problem}", details={"source": source, "field": field})
        self.source = source
        self.field = field
