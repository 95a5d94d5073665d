"""The ``fairplay`` command.

Each subcommand lives in its own module, which exposes ``register(subparsers)``; the
module adds its parser and sets ``func`` to a callable taking the parsed arguments and
returning an exit status. Errors derived from :class:`audit.errors.FairplayError` are
printed as one line on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from audit.errors import FairplayError

# Modules that contribute subcommands, in the order they appear in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "audit.commands.score",
    "audit.commands.audit",
    "audit.commands.pbn",
    "audit.commands.demo",
    "shuffle.cli",
    "audit.log.cli",
    "api.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fairplay",
        description="Cayenne Fair-Play: audit games, verify shuffles and hand logs, serve tables.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # that part of the product is not installed in this build
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = args.func(args)
    except FairplayError as exc:
        print(f"fairplay {args.command}: {exc.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
