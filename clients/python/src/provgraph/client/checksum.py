"""Checksums in the contract's form (``sha256:<64 lowercase hex>``) of files and directories.

Checkpoints and data files are large, so both functions stream: they read `chunk_size` bytes at
a time and never hold a whole file in memory.

`sha256_tree` gives a directory (a sharded checkpoint, a dataset of many files) one checksum,
with a definition that does not depend on the machine, the file system or the walk order:

1. take every file below the directory, at any depth, by its path relative to the directory,
   written with ``/`` (a symlink counts as the file it points to; empty directories add
   nothing);
2. sort these paths by code point (the same order as by their UTF-8 bytes, ``LC_ALL=C sort``);
3. write one line per file, ``<sha256 hex of its content>  <relative path>\\n`` (two spaces:
   the format of ``sha256sum``), and hash the UTF-8 text of all lines with SHA-256.

Without symlinks, a shell prints the same hex digits::

    cd DIR && find . -type f | cut -c3- | LC_ALL=C sort | tr '\\n' '\\0' \\
      | xargs -0 sha256sum | sha256sum
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from provgraph.client.errors import ClientError

CHUNK_SIZE = 1024 * 1024
"""Bytes read at a time (1 MiB): large enough for full disk speed, small in memory."""

PREFIX = "sha256:"


class ChecksumError(ClientError, ValueError):
    """A directory cannot be hashed by the stable definition (a link loop, an odd name)."""


def sha256_file(path: str | os.PathLike[str], *, chunk_size: int = CHUNK_SIZE) -> str:
    """``sha256:<hex>`` of the content of the file at `path`, read in chunks."""
    return PREFIX + _file_digest(Path(path), chunk_size)


def sha256_tree(path: str | os.PathLike[str], *, chunk_size: int = CHUNK_SIZE) -> str:
    """``sha256:<hex>`` of the directory at `path`: its files' relative paths and contents.

    See the module docstring for the exact definition. Raises `NotADirectoryError` when
    `path` is not a directory and `ChecksumError` when a file name contains a newline (the
    manifest line would be ambiguous) or is not UTF-8, or a symlink makes the walk loop.
    """
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a directory (use sha256_file for a file)")
    manifest = hashlib.sha256()
    for relative in sorted(_files(root)):
        line = f"{_file_digest(root / relative, chunk_size)}  {relative}\n"
        manifest.update(line.encode("utf-8"))
    return PREFIX + manifest.hexdigest()


def _file_digest(path: Path, chunk_size: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def _files(root: Path) -> list[str]:
    """Relative POSIX paths of every file below `root`, following symlinks."""
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root, followlinks=True, onerror=_raise):
        here = Path(directory)
        _refuse_loop(root, here)
        dirnames.sort()  # a stable walk, so that an error names the same entry every time
        for name in filenames:
            relative = (here / name).relative_to(root).as_posix()
            found.append(_listable(relative))
    return found


def _listable(relative: str) -> str:
    if "\n" in relative:
        raise ChecksumError(f"{relative!r}: a name with a newline cannot be listed")
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        raise ChecksumError(f"{relative!r}: the name is not valid UTF-8") from None
    return relative


def _refuse_loop(root: Path, directory: Path) -> None:
    # A symlink to a directory above itself would make the walk go round until the path is
    # too long; two links to one directory elsewhere are fine (both paths are listed).
    own = _identity(directory)
    for ancestor in directory.relative_to(root).parents:
        if _identity(root / ancestor) == own:
            raise ChecksumError(f"{directory}: a symlink loops back to {root / ancestor}")


def _identity(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


def _raise(error: OSError) -> None:
    raise error
