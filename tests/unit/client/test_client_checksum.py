"""sha256_file and sha256_tree give the contract's checksum form, equal to hashlib's digest."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from provgraph import client
from provgraph.client.checksum import ChecksumError
from provgraph.schemas.events.checkpoint import CheckpointSavedPayload


def _hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tree_digest(files: dict[str, bytes]) -> str:
    """The documented definition, written out independently of the module."""
    lines = "".join(f"{_hex(files[p])}  {p}\n" for p in sorted(files))
    return f"sha256:{_hex(lines.encode())}"


def _write(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 3 * 4096 + 17])
def test_sha256_file_equals_hashlib_across_chunk_borders(tmp_path: Path, size: int) -> None:
    data = os.urandom(size)
    path = tmp_path / "weights.bin"
    path.write_bytes(data)
    assert client.sha256_file(path, chunk_size=4096) == f"sha256:{_hex(data)}"
    assert client.sha256_file(str(path)) == f"sha256:{_hex(data)}"


class _CountingReader:
    """Wraps an open file and records the size of every read."""

    def __init__(self, stream: Any, reads: list[int]) -> None:
        self.stream, self.reads = stream, reads

    def __enter__(self) -> _CountingReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stream.close()

    def read(self, n: int = -1) -> bytes:
        self.reads.append(n)
        return bytes(self.stream.read(n))


def test_sha256_file_reads_in_chunks_not_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.bin"
    path.write_bytes(b"x" * 10_000)
    reads: list[int] = []
    real_open = Path.open
    monkeypatch.setattr(
        Path, "open", lambda self, *a, **k: _CountingReader(real_open(self, *a, **k), reads)
    )
    assert client.sha256_file(path, chunk_size=1000) == f"sha256:{_hex(b'x' * 10_000)}"
    assert len(reads) == 11 and set(reads) == {1000}  # ten full chunks, then the empty end


def test_the_contract_accepts_what_sha256_file_returns(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.pt"
    path.write_bytes(b"tiny checkpoint")
    payload = CheckpointSavedPayload.model_validate(
        {"run_id": "r-1", "step": 1, "uri": path.as_uri(), "checksum": client.sha256_file(path)}
    )
    assert payload.checksum == f"sha256:{_hex(b'tiny checkpoint')}"


def test_sha256_tree_follows_the_documented_definition(tmp_path: Path) -> None:
    files = {
        "model-00001-of-00002.safetensors": os.urandom(5000),
        "model-00002-of-00002.safetensors": os.urandom(3000),
        "config.json": b'{"layers": 2}',
        "tokenizer/vocab.txt": b"a\nb\n",
        "tokenizer/Z-upper.txt": b"",
        "é-accent.txt": b"accented",
    }
    _write(tmp_path / "ckpt", files)
    (tmp_path / "ckpt" / "empty-dir").mkdir()
    assert client.sha256_tree(tmp_path / "ckpt", chunk_size=1024) == _tree_digest(files)


def test_sha256_tree_is_stable_and_sees_names_and_contents(tmp_path: Path) -> None:
    files = {"a.bin": b"one", "b/c.bin": b"two"}
    _write(tmp_path / "x", files)
    _write(tmp_path / "y", dict(reversed(files.items())))
    digest = client.sha256_tree(tmp_path / "x")
    assert client.sha256_tree(tmp_path / "y") == digest
    (tmp_path / "y" / "a.bin").rename(tmp_path / "y" / "a2.bin")
    assert client.sha256_tree(tmp_path / "y") != digest
    (tmp_path / "x" / "b" / "c.bin").write_bytes(b"TWO")
    assert client.sha256_tree(tmp_path / "x") != digest


def test_sha256_tree_of_an_empty_directory_hashes_an_empty_manifest(tmp_path: Path) -> None:
    assert client.sha256_tree(tmp_path) == f"sha256:{_hex(b'')}"


def test_sha256_tree_counts_a_symlink_as_its_target(tmp_path: Path) -> None:
    _write(tmp_path / "blobs", {"0f3a": b"shard bytes"})
    (tmp_path / "snapshot").mkdir()
    (tmp_path / "snapshot" / "model.safetensors").symlink_to(tmp_path / "blobs" / "0f3a")
    (tmp_path / "snapshot" / "linked").symlink_to(tmp_path / "blobs", target_is_directory=True)
    expected = _tree_digest({"model.safetensors": b"shard bytes", "linked/0f3a": b"shard bytes"})
    assert client.sha256_tree(tmp_path / "snapshot") == expected


def test_sha256_tree_refuses_a_symlink_loop(tmp_path: Path) -> None:
    _write(tmp_path / "ckpt", {"a/w.bin": b"w"})
    (tmp_path / "ckpt" / "a" / "up").symlink_to(tmp_path / "ckpt", target_is_directory=True)
    with pytest.raises(ChecksumError, match="loops back"):
        client.sha256_tree(tmp_path / "ckpt")


def test_sha256_tree_refuses_a_name_with_a_newline(tmp_path: Path) -> None:
    _write(tmp_path, {"bad\nname.bin": b"x"})
    with pytest.raises(ChecksumError, match="newline"):
        client.sha256_tree(tmp_path)


def test_each_function_says_when_given_the_other_kind(tmp_path: Path) -> None:
    (tmp_path / "f.bin").write_bytes(b"x")
    with pytest.raises(NotADirectoryError, match="sha256_file"):
        client.sha256_tree(tmp_path / "f.bin")
    with pytest.raises(IsADirectoryError):
        client.sha256_file(tmp_path)
    with pytest.raises(FileNotFoundError):
        client.sha256_file(tmp_path / "missing.bin")
