"""A fault-injection hook for the end-to-end tests of several hosts on one database.

With ``FAIRPLAY_TEST_EXIT_AFTER_APPEND`` set to a player action type (``commit``,
``reveal``, ``call``, ``play``) or to ``last`` (the last card of a hand, appended with the
server's reveal, the end and the next hand's opening), the host dies at once, like
``kill -9`` of its process group (gunicorn's master and workers, so that no worker is
restarted to repair it), right after the log took the first such action and before the
hand's rows are written: the crash that leaves the log ahead of the rows. Unset (always,
outside the tests, which start such a host in a session of its own), it does nothing.

:func:`at` names the other points a tournament's progress can die at (api/tournament/):
a tournament event type just appended to the event's chain (``tournament_round_end``,
``tournament_round``, ``tournament_end``, ...) before the event's row is saved;
``round_over`` once every table of a round has finished, before the event moves on; and
``board_open`` once a new round's first board at a table is logged, before its row;
``tournament_register`` once an entrant's registration is logged, before the event's row.

:func:`hold` is the in-process side, for tests that run two services in one process:
a callable run at one of those points (a barrier two services' threads meet at, so both
take the same step at once). Nothing is held outside those tests.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

__all__ = ["ENV", "after_append", "at", "hold"]

ENV = "FAIRPLAY_TEST_EXIT_AFTER_APPEND"

_held: dict[str, Callable[[], None]] = {}


def after_append(kind: str, ends_hand: bool) -> None:
    """Called between a player action's log append and its row write."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    if wanted == ("last" if ends_hand else kind):
        os.killpg(os.getpgrp(), signal.SIGKILL)  # no finally, no atexit, no flush


def at(point: str) -> None:
    """Die here if the tests asked for ``point`` (see the module docstring)."""
    if os.environ.get(ENV) == point:
        os.killpg(os.getpgrp(), signal.SIGKILL)
    step = _held.get(point)
    if step is not None:
        step()


def hold(point: str, step: Callable[[], None] | None) -> None:
    """Run ``step`` whenever this process reaches ``point`` (``None``: no longer)."""
    if step is None:
        _held.pop(point, None)
    else:
        _held[point] = step
