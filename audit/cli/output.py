"""Where the commands write: one report to a file, or many under a folder.

A director runs ``fairplay audit`` and ``fairplay score`` on a file or on a folder of
records kept in subfolders (one per club night, say). Writing must never fail with a
traceback (exit status 1 reads as "irregular"): a file that cannot be written is a
:class:`~audit.errors.FairplayError` (exit 2, one line naming the path). Many
reports keep the input's relative paths under the output folder, so two
``rubber.json`` in two subfolders give two reports.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from audit.errors import FairplayError, RecordError

__all__ = [
    "OutputError",
    "check_output_file",
    "expand",
    "make_output_dir",
    "read_documents",
    "report_path",
    "write_text",
]


class OutputError(FairplayError):
    """A report that cannot be written where the command was told to write it."""

    code = "OUTPUT_ERROR"


def check_output_file(output: str | Path) -> Path:
    """The path of a one-record report, refused before any work when it cannot be a file:
    an existing folder, or a file in a folder that does not exist."""
    path = Path(output)
    if path.is_dir():
        raise OutputError(
            f"--output {output}: is a folder; for one record give a file name "
            "(several records or a folder of records write into a folder)"
        )
    parent = path.parent
    if not parent.is_dir():
        raise OutputError(f"--output {output}: the folder {parent} does not exist")
    return path


def write_text(path: Path, text: str) -> None:
    """Write ``text`` whole (never a half-written report), or raise :class:`OutputError`."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def read_documents(paths: Iterable[str]) -> list[tuple[str, Any]]:
    """Every record file named or found in a folder (:func:`expand`), parsed, as
    ``(file name, JSON document)``; a file that cannot be read raises a
    :class:`RecordError` naming it."""
    from audit.record.codec import read_json_file

    paths = list(paths)
    files = [f for f, _rel in expand(paths)]
    if not files:
        raise FairplayError(f"no .json records found in {' '.join(paths)}")
    docs = []
    for f in files:
        try:
            docs.append((str(f), read_json_file(f)))
        except RecordError as exc:
            raise RecordError(str(f), exc.problem) from None
    return docs


def make_output_dir(output: str | Path) -> Path:
    """The folder for many reports, created if missing (with its parents); an existing
    file there is an :class:`OutputError`."""
    path = Path(output)
    if path.exists() and not path.is_dir():
        raise OutputError(f"--output {output}: is a file; several records need a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--output {output}: cannot create the folder: {exc.strerror}") from None
    return path


def expand(paths: Iterable[str]) -> Iterator[tuple[Path, Path]]:
    """Each record file named, folders walked lazily (sorted within each folder), as
    ``(file, relative)``: ``relative`` is the file's path under the folder given (its
    name alone for a file named directly), the place of its report under the output."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            for folder, dirs, names in os.walk(path):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(".json"):
                        file = Path(folder) / name
                        yield file, file.relative_to(path)
        else:
            yield path, Path(path.name)


def report_path(outdir: Path, relative: Path, suffix: str, taken: set[Path]) -> Path:
    """``outdir/relative`` with the record's ``.json`` replaced by ``suffix``; a second
    record that would land on the same report (two files of one name named directly)
    gets ``-2``, ``-3``… before the suffix. Creates the subfolders."""
    stem = relative.name[: -len(".json")] if relative.name.endswith(".json") else relative.name
    folder = outdir / relative.parent
    target = folder / (stem + suffix)
    n = 1
    while target in taken:
        n += 1
        target = folder / f"{stem}-{n}{suffix}"
    taken.add(target)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder {folder}: {exc.strerror}") from None
    return target
