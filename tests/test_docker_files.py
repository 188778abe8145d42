"""``docker/compose.yaml``, ``docker/Dockerfile`` and ``.dockerignore``, checked without a
Docker engine (there is none on the test machines): the compose file parses, the kgbench
service runs ``kgbench serve`` against the neo4j service once it is healthy, bound to
every interface behind a token that only the environment provides, and the image
installs every package ``pyproject.toml`` ships."""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml", reason="pyyaml parses the compose file")

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker" / "compose.yaml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
SECRET_WORDS = ("TOKEN", "AUTH", "PASSWORD", "SECRET")
_VAR = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}")


class MissingVariable(Exception):
    """A ``${VAR:?message}`` whose variable is unset: compose refuses to start."""


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's variable interpolation of one string (``$$`` is a literal ``$``)."""
    def one(m: re.Match[str]) -> str:
        name, op, arg = m["name"], m["op"], m["arg"]
        have = env.get(name)
        if op in (":?", "?") and not have:
            raise MissingVariable(f"{name}: {arg}")
        if op in (":-", "-") and not have:
            return arg
        return have or ""
    return _VAR.sub(one, value.replace("$$", "\0")).replace("\0", "$")


def interpolated(node: Any, env: dict[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, list):
        return [interpolated(v, env) for v in node]
    if isinstance(node, dict):
        return {k: interpolated(v, env) for k, v in node.items()}
    return node


ENV = {"KGBENCH_TOKEN": "tok-from-env", "NEO4J_AUTH": "neo4j/pw-from-env"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    doc = yaml.safe_load(COMPOSE.read_text("utf-8"))
    assert isinstance(doc, dict)
    return doc


def _command(service: dict[str, Any]) -> list[str]:
    cmd = service["command"]
    return shlex.split(cmd) if isinstance(cmd, str) else [str(c) for c in cmd]


def _option(cmd: list[str], name: str) -> str:
    assert name in cmd, f"{name} missing from {cmd}"
    return cmd[cmd.index(name) + 1]


def test_kgbench_serves_neo4j_on_every_interface_behind_the_token(compose):
    services = compose["services"]
    assert set(services) >= {"neo4j", "kgbench"}
    kg = interpolated(services["kgbench"], ENV)
    cmd = _command(kg)
    assert cmd[:2] == ["kgbench", "serve"]
    assert _option(cmd, "--store") == "bolt://neo4j:7687"
    assert _option(cmd, "--host") == "0.0.0.0"
    # The token comes from the environment (serve reads KGBENCH_TOKEN): on the command
    # line it would show in `ps` and `docker inspect`.
    assert "--token" not in cmd
    assert kg["environment"]["KGBENCH_TOKEN"] == ENV["KGBENCH_TOKEN"]
    data = _option(cmd, "--data")
    assert any(str(v).split(":")[1] == data for v in kg["volumes"]), kg["volumes"]
    assert any(str(p).endswith(":8765") for p in kg["ports"])
    port = _option(cmd, "--port") if "--port" in cmd else "8765"
    assert port == "8765"
    assert kg["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert services["neo4j"]["healthcheck"]["test"]
    # The driver logs in with the neo4j service's own credentials.
    assert kg["environment"]["KGBENCH_NEO4J_AUTH"] == ENV["NEO4J_AUTH"]
    assert interpolated(services["neo4j"], ENV)["environment"]["NEO4J_AUTH"] == ENV["NEO4J_AUTH"]
    assert (ROOT / "docker" / kg["build"]["context"] / kg["build"]["dockerfile"]).resolve() \
        == DOCKERFILE


def test_compose_refuses_to_start_without_the_token_or_the_neo4j_password(compose):
    for missing in ENV:
        env = {k: v for k, v in ENV.items() if k != missing}
        with pytest.raises(MissingVariable, match=missing):
            interpolated(compose["services"], env)


def _secret_key(key: str) -> bool:
    return any(word in key.upper() for word in SECRET_WORDS)


def test_no_secret_is_written_in_the_compose_file_or_the_image(compose):
    """Every credential is a required variable (``${VAR:?...}``), never a literal nor a
    default value; the Dockerfile sets none."""
    required = re.compile(r"^\$\{[A-Z0-9_]+:\?[^}]*\}$")
    seen = 0
    for name, service in compose["services"].items():
        env = service.get("environment", {})
        if isinstance(env, list):
            env = dict(item.split("=", 1) for item in env)
        for key, value in env.items():
            if _secret_key(key):
                seen += 1
                assert required.match(str(value)), f"{name}.{key} = {value!r}"
        cmd = service.get("command")
        if cmd is not None:
            words = shlex.split(cmd) if isinstance(cmd, str) else [str(c) for c in cmd]
            for i, word in enumerate(words[:-1]):
                if word in ("--token", "--password"):
                    seen += 1
                    assert required.match(words[i + 1]), f"{name}: {word} {words[i + 1]}"
    assert seen >= 3   # NEO4J_AUTH twice, KGBENCH_TOKEN
    for line in DOCKERFILE.read_text("utf-8").splitlines():
        parts = line.split()
        if parts and parts[0] in ("ENV", "ARG"):
            assert not any(_secret_key(p.split("=")[0]) for p in parts[1:]), line


def _instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text("utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_the_image_runs_kgbench_serve_from_a_slim_python_without_torch():
    steps = _instructions()
    assert steps[0] == ("FROM", "python:3.11-slim")
    runs = " ".join(rest for word, rest in steps if word == "RUN")
    assert "pip install ." in runs and "torch" not in runs and "[export]" not in runs
    user = [rest for word, rest in steps if word == "USER"]
    assert user and user[-1] not in ("root", "0")
    start = [json.loads(rest) for word, rest in steps if word in ("CMD", "ENTRYPOINT")]
    words = [w for form in start for w in form]
    assert words[:2] == ["kgbench", "serve"]
    assert "--token" not in words   # from KGBENCH_TOKEN at run time, never in the image


def _ignored(path: str, patterns: list[str]) -> bool:
    hit = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        p = pattern.lstrip("!").strip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        if any(fnmatch.fnmatch(pre, p) or fnmatch.fnmatch(pre, p.removeprefix("**/"))
               for pre in prefixes):
            hit = not negate
    return hit


def test_the_image_copies_every_package_pyproject_ships_and_the_context_leaves_the_rest_out():
    patterns = [ln.strip() for ln in DOCKERIGNORE.read_text("utf-8").splitlines()
                if ln.strip() and not ln.startswith("#")]
    copied = {src for word, rest in _instructions() if word == "COPY"
              for src in rest.split()[:-1] if not src.startswith("--")}
    include = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))[
        "tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {p.rstrip("*") for p in include}
    assert packages <= copied, packages - copied
    assert {"pyproject.toml", "README.md"} <= copied
    for src in copied:
        assert (ROOT / src).exists(), src
        assert not _ignored(src, patterns), f"{src} is copied but .dockerignore leaves it out"
    for private in (".git", ".venv", ".env", "tests", ".neo4j-test", "kgbench-data",
                    "kgbench/__pycache__"):
        assert _ignored(private, patterns), private
