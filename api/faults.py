"""A fault-injection hook for the end-to-end tests of several hosts on one database.

With ``FAIRPLAY_TEST_EXIT_AFTER_APPEND`` set to a player action type (``commit``,
``reveal``, ``call``, ``play``) or to ``last`` (the last card of a hand, appended with the
server's reveal, the end and the next hand's opening), the process exits at once, without
cleanup, right after the log took the first such action and before the hand's rows are
written: the crash that leaves the log ahead of the rows. Unset (always, outside the
tests), it does nothing.
"""

from __future__ import annotations

import os

ENV = "FAIRPLAY_TEST_EXIT_AFTER_APPEND"


def after_append(kind: str, ends_hand: bool) -> None:
    """Called between a player action's log append and its row write."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    if wanted == ("last" if ends_hand else kind):
        os._exit(86)  # like kill -9: no finally, no atexit, no flush
