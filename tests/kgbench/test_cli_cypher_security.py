"""``kgbench cypher`` as a hostile user would run it (issue 18, findings 1-5).

Each test runs the real CLI (in this process: :func:`tests.kgbench.test_cli.run`) against
a real store and checks what did NOT happen (no native code loaded, no file written or
printed, no extension folder deleted) as well as the one-line refusal; valid reads keep
working.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

import ladybug
import pytest

from tests.kgbench.test_cli import loaded_store, run

FACTS = "/m/01\t/film/film/directed_by\t/m/02\n/m/01\t/film/film/starring\t/m/03\n"
NAMES = "/m/01\tAlpha Film\n/m/02\tCREATE\n/m/03\tSam Star\n"


def assert_refused(proc: subprocess.CompletedProcess[str], clause: str) -> None:
    """Exit 1, one `Error:` line naming the clause (plus the CLI's hint), no traceback."""
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    assert f"`{clause}` is not allowed" in errors[0], proc.stderr
    assert "read-only" in errors[0]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return loaded_store(tmp_path_factory.mktemp("cypher-security"), FACTS, NAMES)


def test_load_of_a_shared_library_runs_no_native_code(store: Path, tmp_path: Path) -> None:
    """Finding 1: LOAD '<lib.so>' loaded the library, running its constructor."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (cc) to build the test's shared library")
    marker = tmp_path / "constructor-ran"
    source = tmp_path / "evil.c"
    source.write_text(
        "#include <stdio.h>\n"
        "__attribute__((constructor)) static void mark(void) {\n"
        f"  FILE *f = fopen({json.dumps(str(marker))}, \"w\");\n"
        "  if (f) { fputs(\"ran\\n\", f); fclose(f); }\n"
        "}\n", encoding="utf-8")
    library = tmp_path / "evil.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(library), str(source)], check=True,
                   capture_output=True, timeout=120)
    for query, clause in ((f"LOAD '{library}'", "LOAD"),
                          (f"load extension '{library}'", "LOAD EXTENSION")):
        proc = run("cypher", query, "--store", store)
        assert not marker.exists()
        assert_refused(proc, clause)


def test_comment_trick_writes_no_file(store: Path, tmp_path: Path) -> None:
    """Finding 2: the old check ended the comment at '**/', the engine did not."""
    out = tmp_path / "x.csv"
    proc = run("cypher", f"/* **/ ' */ COPY (MATCH (e:Entity) RETURN e.id LIMIT 3) TO '{out}'",
               "--store", store)
    assert not out.exists()
    assert_refused(proc, "COPY")


def test_local_files_are_not_read(store: Path, tmp_path: Path) -> None:
    """Finding 3: LOAD FROM printed any local file."""
    secret = tmp_path / "shadow"
    secret.write_text("root:s3cr3t-hash-4711:19000:0:99999:7:::\n", encoding="utf-8")
    proc = run("cypher", f"LOAD FROM '{secret}' (file_format='csv', header=false, delim=':') "
               "RETURN * LIMIT 2", "--store", store)
    assert "s3cr3t" not in proc.stdout + proc.stderr
    assert_refused(proc, "LOAD FROM")
    proc = run("cypher", f"CALL read_csv_serial('{secret}') RETURN *", "--store", store)
    assert "s3cr3t" not in proc.stdout + proc.stderr
    assert_refused(proc, "CALL read_csv_serial")


def _extension_dir(home: Path) -> Path:
    platforms = {("Linux", "x86_64"): "linux_amd64", ("Linux", "aarch64"): "linux_arm64",
                 ("Darwin", "arm64"): "osx_arm64", ("Darwin", "x86_64"): "osx_amd64"}
    name = platforms.get((platform.system(), platform.machine()))
    if name is None:
        pytest.skip(f"LadybugDB's extension folder name for {platform.platform()} is not known")
    return home / ".lbdb" / "extension" / ladybug.__version__ / name / "httpfs"


def test_extensions_are_not_updated_or_removed(store: Path, tmp_path: Path) -> None:
    """Finding 4: UNINSTALL deleted an extension folder under a home directory set with
    CALL home_directory=...; UPDATE tried to download one."""
    folder = _extension_dir(tmp_path / "home")
    folder.mkdir(parents=True)
    (folder / "libhttpfs.lbug_extension").write_bytes(b"not really")
    (folder / "keep.txt").write_text("mine", encoding="utf-8")
    proc = run("cypher", f"CALL home_directory='{tmp_path / 'home'}'; UNINSTALL httpfs",
               "--store", store)
    assert (folder / "keep.txt").read_text(encoding="utf-8") == "mine"
    assert_refused(proc, ";")
    assert_refused(run("cypher", f"CALL home_directory='{tmp_path}'", "--store", store),
                   "CALL home_directory=…")
    assert_refused(run("cypher", "UNINSTALL httpfs", "--store", store), "UNINSTALL")
    assert_refused(run("cypher", "UPDATE httpfs", "--store", store), "UPDATE")
    assert (folder / "libhttpfs.lbug_extension").exists()


def test_two_statements_give_one_error_line(store: Path) -> None:
    """Finding 5: both ran, then a traceback."""
    proc = run("cypher", "RETURN 1; RETURN 2", "--store", store)
    assert_refused(proc, ";")
    assert "one statement" in proc.stderr


def test_reads_still_work(store: Path) -> None:
    def rows(query: str) -> Any:
        proc = run("cypher", query, "--store", store, "--json")
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["rows"]

    assert rows("MATCH (e:Entity) WHERE e.name = 'CREATE' RETURN e.id AS id") == [["m.02"]]
    assert rows("MATCH (e:Entity) RETURN e.id AS id ORDER BY id LIMIT 2;") == [["m.01"],
                                                                                ["m.02"]]
    assert ["Entity"] in rows("CALL show_tables() RETURN name")
    assert rows("MATCH (e:Entity {id: 'm.01'})-[f:Fact]->(o) /* DELETE? */ "
                "RETURN count(f) AS n") == [[2]]


def test_cypher_help_lists_what_the_guard_allows() -> None:
    """The help names every read clause and catalogue function the guard accepts, so a
    user learns the allow-list before hitting a refusal."""
    from kgstore.cypher.guard import CATALOGUE, READ_CLAUSES

    proc = run("cypher", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for clause in READ_CLAUSES:
        assert clause.split(" [")[0] in text
    for call in CATALOGUE["ladybug"]:
        assert call.split("(")[0] in text
