"""The ``fairplay`` command.

Each subcommand lives in its own module, which exposes ``register(subparsers)``; the
module adds its parser(s) and sets ``func`` to a callable taking the parsed arguments
and returning an exit status. Modules are imported only when their command runs, so
``fairplay score`` never loads the HTTP service. Errors derived from
:class:`audit.errors.FairplayError` are printed as one line on stderr with exit
status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from audit.errors import FairplayError

__all__ = ["COMMANDS", "build_parser", "main"]

# command -> (module that registers it, one-line help), in --help order.
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("audit.cli.audit", "audit records: irregularities, stacked deals, score errors"),
    "score": ("audit.cli.score", "print a record's score sheet in the book's layout"),
    "pbn": ("audit.cli.pbn", "export a record to PBN, or import a PBN file"),
    "tournament": ("audit.cli.tournament", "score an event played over the table"),
    "analyse": (
        "audit.cli.analyse",
        "judge every card double dummy; test pairs for play that knows too much",
    ),
    "shuffle": (
        "audit.cli.shuffle",
        "run a commit-reveal shuffle ceremony, or verify a transcript",
    ),
    "log": ("audit.cli.log", "the signed hand log: keys, append, checkpoint, verify"),
    "verify": ("audit.cli.log", "check a hand's offline proof bundle"),
    "witness": (
        "audit.cli.witness",
        "follow a log, cosign its checkpoints, refuse split views",
    ),
    "serve": ("audit.cli.serve", "run the HTTP service"),
    "director": ("audit.cli.director", "grant a tournament director's key on the service"),
    "bot": ("audit.cli.serve", "bot players that play through the HTTP API"),
}


def _overview() -> str:
    width = max(len(c) for c in COMMANDS)
    lines = [
        "usage: fairplay COMMAND [options]",
        "",
        "Cayenne Fair-Play: audit games, verify shuffles and hand logs, serve tables.",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "`fairplay COMMAND --help` describes each; `fairplay --version` the build."]
    return "\n".join(lines) + "\n"


def build_parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fairplay")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    module = importlib.import_module(COMMANDS[command][0])
    module.register(subparsers)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from audit import native

    try:
        v = version("cayenne-fairplay")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        v = "unknown"
    fast = "native fast path" if native.available() else "pure Python (no native fast path)"
    return f"cayenne-fairplay {v}; auditor: {fast}\n"


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in args_list if not a.startswith("-")), None)
    if command is None and "--version" in args_list:
        sys.stdout.write(_version())
        return 0
    if command is None or command not in COMMANDS:
        if command is None and any(a in ("-h", "--help") for a in args_list):
            sys.stdout.write(_overview())
            return 0
        if command is not None:
            print(f"fairplay: unknown command {command!r}", file=sys.stderr)
        sys.stderr.write(_overview())
        return 2
    parser = build_parser(command)
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = args.func(args)
    except FairplayError as exc:
        print(f"fairplay {args.command}: {exc.message}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # A hostile file the checks did not name (exit 1 means "tampering found"): exit 2,
        # one line, no traceback.
        print(f"fairplay {args.command}: malformed input: {exc!r}"[:500], file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return status
