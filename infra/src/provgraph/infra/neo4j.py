"""Neo4j 5 LTS Community on loopback, authentication on with a generated password."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

from provgraph.infra import maven
from provgraph.infra.base import LocalServer, template
from provgraph.infra.errors import StartupError

_DEFAULT_PASSWORD = "neo4j"  # a fresh database's default, which must be changed at first login

# The JVM options the official neo4j.conf lists under server.jvm.additional.
_JVM_OPTIONS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+AlwaysPreTouch",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
]


class Neo4jServer(LocalServer):
    """Neo4j from org.neo4j:neo4j, started through org.neo4j.server.CommunityEntryPoint."""

    name = "neo4j"

    def marker(self) -> str:
        return f"provgraph-neo4j={self.dir}"

    def ports(self) -> dict[str, int]:
        return {"bolt": self.settings.neo4j_bolt_port, "http": self.settings.neo4j_http_port}

    @property
    def password_file(self) -> Path:
        return self.dir / "password"

    def password(self) -> str:
        """The generated password, created (mode 0600) on first use."""
        if not self.password_file.exists():
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(24) + "\n")
        return self.password_file.read_text().strip()

    def prepare(self) -> list[str]:
        s = self.settings
        lib = maven.resolve("neo4j", s.neo4j_version, s.cache_dir, s.mvn)
        # The server serves the Browser at /browser/ from the `browser/` resources on its
        # classpath (it has no web directory). A cache entry of its own: a server fetched
        # before stays valid.
        browser = maven.resolve("neo4j-browser", s.neo4j_browser_version, s.cache_dir, s.mvn)
        java = maven.find_java(s.java)
        conf_dir = self._write_config()
        heap = s.neo4j_heap
        return [
            java,
            f"-Xms{heap}",
            f"-Xmx{heap}",
            *_JVM_OPTIONS,
            f"-D{self.marker()}",
            "-cp",
            f"{self.dir / 'plugins'}/*:{lib}/*:{browser}/*",
            "org.neo4j.server.CommunityEntryPoint",
            f"--home-dir={self.dir}",
            f"--config-dir={conf_dir}",
        ]

    @property
    def _password_applied(self) -> Path:
        return self.dir / "password.applied"

    def _login_password(self) -> str:
        # One guess only: repeated wrong passwords make Neo4j lock the user for a while.
        return self.password() if self._password_applied.exists() else _DEFAULT_PASSWORD

    def is_ready(self) -> bool:
        """Bolt answers: with our password, or with the default one awaiting its change."""
        try:
            self._run("RETURN 1", self._login_password(), database="neo4j")
        except Neo4jError as exc:
            return exc.code is not None and "CredentialsExpired" in exc.code
        except (ServiceUnavailable, OSError):
            return False
        return True

    def after_ready(self) -> None:
        """Replace the default password with the generated one at first start, then probe."""
        if not self._password_applied.exists():
            self._change_default_password()
            self._password_applied.write_text("the password in ./password is the live one\n")
        self._run("RETURN 1", self.password(), database="neo4j")

    def _change_default_password(self) -> None:
        change = "ALTER CURRENT USER SET PASSWORD FROM $old TO $new"
        params = {"old": _DEFAULT_PASSWORD, "new": self.password()}
        try:
            self._run(change, _DEFAULT_PASSWORD, params, database="system")
        except (AuthError, Neo4jError) as exc:
            raise StartupError(
                f"Neo4j accepts neither the password in {self.password_file} nor the default "
                f"one: its data in {self.dir / 'data'} was set up elsewhere. Wipe it with "
                "`provgraph infra down --wipe`, or write its password into that file."
            ) from exc

    def log_paths(self) -> list[Path]:
        return [
            self.process.log_file,
            self.dir / "logs" / "neo4j.log",
            self.dir / "logs" / "debug.log",
        ]

    def _run(
        self, query: str, password: str, params: dict[str, str] | None = None, *, database: str
    ) -> None:
        auth = (self.settings.neo4j_user, password)
        # The one server this launcher started, straight (bolt://): the routing scheme would log
        # an ERROR for every probe made before the server answers.
        direct = f"bolt://{self.settings.host}:{self.settings.neo4j_bolt_port}"
        with (
            GraphDatabase.driver(direct, auth=auth) as driver,
            driver.session(database=database) as session,
        ):
            session.run(query, params or {}).consume()

    def _write_config(self) -> Path:
        s = self.settings
        conf_dir = self.dir / "conf"
        dirs = {key: self.dir / key for key in ("data", "logs", "plugins", "import", "run")}
        for path in (conf_dir, *dirs.values()):
            path.mkdir(parents=True, exist_ok=True)
        text = template("neo4j.conf").format(
            host=s.host,
            bolt_port=s.neo4j_bolt_port,
            http_port=s.neo4j_http_port,
            heap=s.neo4j_heap,
            pagecache=s.neo4j_pagecache,
            **{f"{key}_dir": path for key, path in dirs.items()},
        )
        (conf_dir / "neo4j.conf").write_text(text)
        return conf_dir
