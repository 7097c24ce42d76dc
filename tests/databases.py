"""Throwaway database servers for the JDBC tests: PostgreSQL and MariaDB from Debian's packages.

Each server runs on a free loopback port under a temporary directory, for one test session, and
is stopped at its end; tests get a fresh database each (`PostgresServer.new_database`). A missing
server binary fails the test with what to install, never skips. PostgreSQL refuses to run as
root, so as root it runs as the ``postgres`` user (``runuser``) with the data directory owned by
it; MariaDB likewise runs as ``mysql``. Both accept ``kconnect``/`PASSWORD` over TCP.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from kconnect_testkit.broker import free_port

USER = "kconnect"
PASSWORD = "s3cret-pw"
INSTALL_HINT = "apt-get install -y postgresql mariadb-server (bash .ci/run does it)"


def _run_as(user: str | None, args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    command = ["runuser", "-u", user, "--", *args] if user else args
    return subprocess.run(command, check=True, capture_output=True, text=True, timeout=120, **kwargs)  # type: ignore[call-overload]


def _service_user(name: str) -> str | None:
    """The unprivileged user to run a server as when we are root; None otherwise."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(name)
    except KeyError:
        pytest.fail(f"user {name!r} is missing: {INSTALL_HINT}")
    return name


def _own(path: Path, user: str | None) -> None:
    if user:
        entry = pwd.getpwnam(user)
        for root, dirs, files in os.walk(path):
            for name in [root, *[os.path.join(root, n) for n in dirs + files]]:
                os.chown(name, entry.pw_uid, entry.pw_gid)


def _wait(what: str, check: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except Exception as e:
            last = e
        time.sleep(0.2)
    pytest.fail(f"{what} did not come up within {timeout:.0f} s: {last}")


class PostgresServer:
    """A PostgreSQL cluster made by ``initdb`` and run by ``pg_ctl`` (``wal_level=logical``)."""

    def __init__(self) -> None:
        bindir = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        tools = [Path(d) for d in bindir if (Path(d) / "initdb").exists() and (Path(d) / "pg_ctl").exists()]
        if not tools:
            pytest.fail(
                f"PostgreSQL's initdb/pg_ctl not found under /usr/lib/postgresql/*/bin: {INSTALL_HINT}"
            )
        self.bin = tools[-1]
        self.user = _service_user("postgres")
        self.root = Path(tempfile.mkdtemp(prefix="kconnect-pg-"))
        os.chmod(self.root, 0o755)
        self.data = self.root / "data"
        self.port = free_port()

    def start(self) -> PostgresServer:
        """initdb, then start and wait until it accepts connections."""
        pwfile = self.root / "pw"
        pwfile.write_text(PASSWORD)
        _own(self.root, self.user)
        _run_as(
            self.user,
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                USER,
                "--pwfile",
                str(pwfile),
                "--auth-host=scram-sha-256",
                "--auth-local=trust",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        )
        return self.resume()

    def resume(self) -> PostgresServer:
        """Start the (initialised or halted) server on its port and wait until it accepts connections."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c wal_level=logical "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        _run_as(
            self.user,
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-o",
                options,
                "-l",
                str(self.root / "log"),
                "-w",
                "start",
            ],
        )
        _wait("PostgreSQL", lambda: self._connect("postgres").close() or True)
        return self

    def halt(self) -> None:
        """Stop the server (``-m fast``: sessions cut, committed data kept), its files kept for `resume`.

        Not ``-m immediate``: with ``synchronous_commit=off`` a crash loses the last commits.
        """
        _run_as(self.user, [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])

    def _connect(self, database: str):  # type: ignore[no-untyped-def]
        import psycopg

        return psycopg.connect(
            host="127.0.0.1", port=self.port, user=USER, password=PASSWORD, dbname=database, autocommit=True
        )

    def new_database(self) -> str:
        """A fresh empty database's name."""
        name = f"db_{uuid.uuid4().hex[:12]}"
        with self._connect("postgres") as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return name

    def execute(self, database: str, *statements: str) -> None:
        """Run statements in `database` (autocommit)."""
        with self._connect(database) as connection:
            for statement in statements:
                connection.execute(statement)  # type: ignore[arg-type]

    def query(self, database: str, sql: str) -> list[tuple[object, ...]]:
        """The rows of `sql` in `database`."""
        with self._connect(database) as connection:
            return list(connection.execute(sql).fetchall())  # type: ignore[arg-type]

    def jdbc_url(self, database: str) -> str:
        """The JDBC URL of `database` (user and password go in their own keys)."""
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the server and delete its files."""
        try:
            _run_as(
                self.user, [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]
            )
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


class MariaDbServer:
    """A MariaDB server made by ``mariadb-install-db`` and run by ``mariadbd``."""

    def __init__(self) -> None:
        self.mariadbd = (
            shutil.which("mariadbd") or shutil.which("mysqld") or _sbin("mariadbd") or _sbin("mysqld")
        )
        self.install_db = shutil.which("mariadb-install-db") or shutil.which("mysql_install_db")
        if not self.mariadbd or not self.install_db:
            pytest.fail(f"mariadbd/mariadb-install-db not found: {INSTALL_HINT}")
        self.user = _service_user("mysql")
        self.root = Path(tempfile.mkdtemp(prefix="kconnect-maria-"))
        os.chmod(self.root, 0o755)
        self.data = self.root / "data"
        self.socket = self.root / "mysqld.sock"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> MariaDbServer:
        """Install the system tables, start the server, create the test user."""
        user_args = [f"--user={self.user or pwd.getpwuid(os.geteuid()).pw_name}"]
        install = [
            str(self.install_db),
            "--no-defaults",
            f"--datadir={self.data}",
            *user_args,
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
        ]
        # One CI run saw mariadb-install-db exit 1 once, in one of its two test sessions, and not again
        # (its output was not kept then). Its output now names the cause, and a second try on an
        # empty data folder follows a first failure.
        for attempt in (1, 2):
            shutil.rmtree(self.data, ignore_errors=True)
            self.data.mkdir()
            _own(self.root, self.user)
            installed = subprocess.run(install, capture_output=True, timeout=180, check=False)
            if installed.returncode == 0:
                break
            output = (installed.stdout + installed.stderr).decode(errors="replace")[-3000:]
            if attempt == 2:
                pytest.fail(f"mariadb-install-db exited {installed.returncode} twice:\n{output}")
            print(f"mariadb-install-db exited {installed.returncode}; trying again:\n{output}")
        log = open(self.root / "log", "wb")  # the server writes it until stop
        self.process = subprocess.Popen(
            [
                str(self.mariadbd),
                "--no-defaults",
                f"--datadir={self.data}",
                f"--socket={self.socket}",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                f"--pid-file={self.root / 'mysqld.pid'}",
                "--skip-name-resolve",
                "--innodb-flush-log-at-trx-commit=0",
                "--innodb-buffer-pool-size=64M",
                *user_args,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        _wait("MariaDB", lambda: self._root_connection().close() or True)
        with self._root_connection() as connection, connection.cursor() as cursor:
            cursor.execute(f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
            cursor.execute(f"GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'%' WITH GRANT OPTION")
        return self

    def _root_connection(self):  # type: ignore[no-untyped-def]
        import pymysql

        if self.process is not None and self.process.poll() is not None:
            pytest.fail(f"mariadbd exited: {(self.root / 'log').read_text(errors='replace')[-2000:]}")
        return pymysql.connect(unix_socket=str(self.socket), user="root", autocommit=True)

    def _connect(self, database: str | None):  # type: ignore[no-untyped-def]
        import pymysql

        return pymysql.connect(
            host="127.0.0.1", port=self.port, user=USER, password=PASSWORD, database=database, autocommit=True
        )

    def new_database(self) -> str:
        """A fresh empty database's name."""
        name = f"db_{uuid.uuid4().hex[:12]}"
        with self._connect(None) as connection, connection.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE `{name}`")
        return name

    def execute(self, database: str, *statements: str) -> None:
        """Run statements in `database` (autocommit)."""
        with self._connect(database) as connection, connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)

    def query(self, database: str, sql: str) -> list[tuple[object, ...]]:
        """The rows of `sql` in `database`."""
        with self._connect(database) as connection, connection.cursor() as cursor:
            cursor.execute(sql)
            return list(cursor.fetchall())

    def jdbc_url(self, database: str) -> str:
        """The JDBC URL of `database`."""
        return f"jdbc:mariadb://127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the server and delete its files."""
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _sbin(name: str) -> str | None:
    path = Path("/usr/sbin") / name
    return str(path) if path.exists() else None
