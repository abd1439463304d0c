"""Fetch the official Kafka and Neo4j artifacts from Maven Central into a cache outside the repo."""

from __future__ import annotations

import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from provgraph.infra.errors import FetchError, MissingToolError

_COMPLETE = ".complete"


def find_java(configured: str = "") -> str:
    """The java binary: the configured one, else $JAVA_HOME/bin/java, else java on PATH."""
    candidates = [configured] if configured else []
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidates.append(str(Path(java_home) / "bin" / "java"))
    candidates.append("java")
    for candidate in candidates:
        found = shutil.which(candidate)
        if found:
            return found
    raise MissingToolError(
        "Java 17 or newer is needed to run Kafka and Neo4j, and none was found "
        "(looked at PROVGRAPH_JAVA, $JAVA_HOME/bin/java, PATH). "
        "Install it (Debian: apt-get install openjdk-17-jre-headless) or set PROVGRAPH_JAVA."
    )


def resolve(component: str, version: str, cache_dir: Path, mvn: str = "mvn") -> Path:
    """Return a directory holding every jar of `component` at `version`, fetching it once.

    The jars land in <cache_dir>/<component>-<version>/lib; a marker file makes the fetch
    atomic: an interrupted fetch is redone, a complete one is reused without network.
    """
    target = cache_dir / f"{component}-{version}"
    lib = target / "lib"
    if (target / _COMPLETE).exists():
        return lib
    mvn_bin = shutil.which(mvn)
    if mvn_bin is None:
        raise MissingToolError(
            f"Maven ({mvn!r}) is needed once to fetch {component} {version} from Maven Central "
            "and was not found. Install it (Debian: apt-get install maven) or set PROVGRAPH_MVN."
        )
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    pom = target / "pom.xml"
    pom.write_text(_pom_template(component).replace("@VERSION@", version))
    _run_maven(mvn_bin, pom, lib, f"{component} {version}", target)
    (target / _COMPLETE).write_text(version + "\n")
    return lib


def _pom_template(component: str) -> str:
    return resources.files("provgraph.infra").joinpath(f"maven/{component}.xml").read_text()


def _run_maven(mvn_bin: str, pom: Path, lib: Path, what: str, target: Path) -> None:
    argv = [
        mvn_bin,
        "-B",
        "-q",
        "-f",
        str(pom),
        "dependency:copy-dependencies",
        f"-DoutputDirectory={lib}",
        "-DincludeScope=runtime",
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not any(lib.glob("*.jar")):
        output = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
        shutil.rmtree(target, ignore_errors=True)
        raise FetchError(
            f"Maven could not fetch {what} from Maven Central (exit {proc.returncode}). "
            "Check the network and the Maven proxy settings (~/.m2/settings.xml), then run "
            "`make up` again. Maven said:\n  " + "\n  ".join(output)
        )
