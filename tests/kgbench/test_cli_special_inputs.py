"""Inputs that are not regular files (issue 32, item 8), end to end through the CLI.

Before the fix a FIFO given as an input blocked for ever: ``open()`` waits for a writer
(``evaluate --predictions``, ``kalma score --answers``, ``conner score``, ``kalma
import``, ``questions parse``, ``load triples``). Now every input goes through one
helper (:func:`loaders.input_file.open_input`) that refuses a FIFO, a device or a
socket with one line, before anything is read or created. Each command runs with a
timeout: a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from loaders.errors import InputFileError
from tests.kgbench.test_cli import assert_clean_error, run

HANG_S = 60
"""A command that has not answered by then is waiting on the FIFO."""

Command = Callable[[Path, Path], list[str | Path]]
COMMANDS: dict[str, Command] = {
    "evaluate --predictions": lambda special, tmp: [
        "evaluate", tmp / "bench", "--predictions", special],
    "kalma score --answers": lambda special, tmp: [
        "kalma", "score", tmp / "entries.jsonl", "--answers", special],
    "kalma score ENTRIES": lambda special, tmp: [
        "kalma", "score", special, "--answers", tmp / "answers.jsonl"],
    "conner score": lambda special, tmp: ["conner", "score", special, "--nli", tmp / "nli"],
    "kalma import": lambda special, tmp: ["kalma", "import", special, special,
                                          "--out", tmp / "imported"],
    "questions parse": lambda special, tmp: ["questions", "parse", special,
                                             "--out", tmp / "parsed.jsonl"],
    "load triples": lambda special, tmp: ["load", "triples", special, "--store", tmp / "store"],
}


def _inputs(tmp_path: Path) -> None:
    """The other inputs of the commands, as real files (they are never reached)."""
    (tmp_path / "bench").mkdir()
    (tmp_path / "entries.jsonl").write_text("{}\n")
    (tmp_path / "answers.jsonl").write_text("{}\n")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_fifo_input_is_refused_in_one_line_not_waited_on(tmp_path: Path,
                                                           command: str) -> None:
    _inputs(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = run(*COMMANDS[command](fifo, tmp_path), timeout=HANG_S)
    assert_clean_error(proc)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: {fifo}: is a FIFO (named pipe), not a regular file; give the "
                      "path of a file (pipes, devices and sockets are not read)"], proc.stderr
    for made in ("store", "imported", "parsed.jsonl"):
        assert not (tmp_path / made).exists(), made


@pytest.mark.parametrize("command", ["kalma score --answers", "questions parse",
                                     "load triples"])
def test_a_character_device_input_is_refused(tmp_path: Path, command: str) -> None:
    _inputs(tmp_path)
    proc = run(*COMMANDS[command](Path("/dev/zero"), tmp_path), timeout=HANG_S)
    assert_clean_error(proc)
    assert "/dev/zero: is a character device, not a regular file" in proc.stderr


def test_the_helper_refuses_a_socket_and_a_fifo_and_reads_a_file_through_a_link(
        tmp_path: Path) -> None:
    from loaders.input_file import check_input_file, open_input

    sock_path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(sock_path))
        with pytest.raises(InputFileError, match="is a socket, not a regular file"):
            check_input_file(sock_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    with pytest.raises(InputFileError, match="is a FIFO"):
        open_input(link)
    real = tmp_path / "real.txt"
    real.write_bytes(b"line\n")
    link.unlink()
    link.symlink_to(real)
    with open_input(link) as stream:
        assert stream.read() == b"line\n"
    with pytest.raises(IsADirectoryError):
        open_input(tmp_path)
    with pytest.raises(FileNotFoundError):
        open_input(tmp_path / "missing")


def test_a_fifo_with_a_writer_waiting_is_still_refused(tmp_path: Path) -> None:
    """A writer on the other end does not make a pipe a file: refused the same."""
    from loaders.input_file import open_input

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"echo data > '{fifo}'"])
    try:
        with pytest.raises(InputFileError, match="is a FIFO"):
            open_input(fifo)
    finally:
        writer.kill()
        writer.wait()
