"""The CPU seconds a command takes, its lost grandchildren included (the test suite's cost).

    python bench/suite_cpu.py [--postgres PID] -- python -m pytest -q -p no:xdist FILE

On a shared machine wall times say more about the others' load than about the suite, so the
suite's cost is measured in CPU seconds. ``/usr/bin/time`` counts only the children that
were waited for: Chromium, started by chromedriver and left to init when the driver quits,
would be lost. This script makes itself a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``),
so every descendant that outlives its parent is reparented to it and reaped here; the user
and system seconds printed are those of every process the command started.

PostgreSQL's backends are children of the postmaster, not of the suite: with ``--postgres``
the postmaster's children's times (``/proc/PID/stat`` fields 16 and 17) are read before and
after. Other users of the same server count in that difference, so repeat the run.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def postmaster_children_seconds(pid: int) -> float:
    """The user + system seconds of the postmaster's waited-for children (its backends)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields 16 and 17 of stat(5), counted from 1 with pid and comm: here from 3
    cutime, cstime = int(fields[16 - 3]), int(fields[17 - 3])
    return (cutime + cstime) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--postgres", type=int, help="the postmaster's pid")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    pg_before = postmaster_children_seconds(args.postgres) if args.postgres else 0.0
    start = time.monotonic()
    # The orphans reparented here (Chromium's renderers and the like) are reaped as they end,
    # not only after the command: a dead process left a zombie looks alive to whoever checks
    # its pid (a certificate build taken over from a killed host waits for its claim's
    # process to be gone, and waited for ever under this script before).
    main_pid = subprocess.Popen(command).pid
    code = 0
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid == main_pid:
            code = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = f"user {usage.ru_utime:.1f} s, system {usage.ru_stime:.1f} s, wall {wall:.0f} s"
    if args.postgres:
        line += (
            f", postgres backends {postmaster_children_seconds(args.postgres) - pg_before:.1f} s"
        )
    print(line, file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
