"""``connection.url``: a JDBC URL (as Confluent's connector takes) or a SQLAlchemy URL, as one SQLAlchemy URL.

Pure translation, no I/O. Accepted forms::

    jdbc:postgresql://host:5432/db?sslmode=require   -> postgresql+psycopg://host:5432/db?sslmode=require
    jdbc:postgresql:db                               -> postgresql+psycopg:///db (localhost)
    jdbc:mysql://host:3306/db, jdbc:mariadb://...    -> mysql+pymysql://host:3306/db
    jdbc:sqlite:/path/to/file.db, jdbc:sqlite::memory: -> sqlite:////path/to/file.db, sqlite://
    postgresql://..., mysql+pymysql://..., sqlite:///... (SQLAlchemy URLs, taken as they are;
    a bare ``postgresql://`` or ``mysql://`` gets the bundled driver)

``connection.user`` and ``connection.password`` fill the URL's user and password when set, as the
JDBC driver's ``user``/``password`` properties do; ``user=``/``password=`` query parameters of a
JDBC URL are moved there too. Other parameters of a JDBC URL are JDBC driver properties: those the
Python driver knows too are passed on (`PASSED_PARAMETERS`, PostgreSQL's ``ApplicationName`` as
``application_name``), the rest are dropped with a warning, so Confluent's URLs
(``?useSSL=false&serverTimezone=UTC``) still connect. The password never appears in `describe_url`.
"""

from __future__ import annotations

import logging
from urllib.parse import parse_qsl, urlsplit

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

log = logging.getLogger(__name__)

#: SQLAlchemy driver names this plugin ships, per backend.
DRIVERS = {"postgresql": "psycopg", "mysql": "pymysql", "mariadb": "pymysql"}

#: JDBC URL parameters the Python drivers take as they are (the others are dropped).
PASSED_PARAMETERS = {
    "postgresql": {"sslmode", "sslrootcert", "sslcert", "sslkey", "application_name", "connect_timeout"},
    "mysql": {"charset"},
}
#: JDBC URL parameters the Python drivers take under another name.
RENAMED_PARAMETERS = {"postgresql": {"ApplicationName": "application_name"}, "mysql": {}}


class UrlError(ValueError):
    """``connection.url`` is neither a supported JDBC URL nor a SQLAlchemy URL."""


def to_sqlalchemy_url(url: str, user: str | None = None, password: str | None = None) -> URL:
    """The SQLAlchemy URL for `url`, with `user`/`password` filled in when given.

    Raises UrlError with a text that names the URL's scheme, never its password.
    """
    text = url.strip()
    if not text:
        raise UrlError("connection.url is empty")
    parsed = _from_jdbc(text) if text.lower().startswith("jdbc:") else _from_sqlalchemy(text)
    if user:
        parsed = parsed.set(username=user)
    if password is not None and password != "":
        parsed = parsed.set(password=password)
    return parsed


def backend_name(url: URL) -> str:
    """The database a URL points at: ``postgresql``, ``mysql`` or ``sqlite`` (MariaDB is ``mysql``)."""
    backend = url.get_backend_name()
    return "mysql" if backend == "mariadb" else backend


def describe_url(url: URL) -> str:
    """`url` as text with the password masked, for logs and error messages."""
    return url.render_as_string(hide_password=True)


def _from_sqlalchemy(text: str) -> URL:
    try:
        parsed = make_url(text)
    except ArgumentError as e:
        scheme = text.split(":", 1)[0]
        raise UrlError(f"Unsupported connection.url of scheme '{scheme}'") from e
    backend = parsed.get_backend_name()
    if parsed.drivername == backend and backend in DRIVERS:
        parsed = parsed.set(drivername=f"{backend}+{DRIVERS[backend]}")
    return parsed


def _from_jdbc(text: str) -> URL:
    rest = text[len("jdbc:") :]
    subprotocol, _, remainder = rest.partition(":")
    subprotocol = subprotocol.lower()
    if subprotocol == "sqlite":
        return _sqlite(remainder)
    if subprotocol in ("postgresql", "mysql", "mariadb"):
        return _server(subprotocol, remainder)
    raise UrlError(
        f"Unsupported JDBC URL subprotocol '{subprotocol}': use jdbc:postgresql, jdbc:mysql, "
        "jdbc:mariadb, jdbc:sqlite or a SQLAlchemy URL"
    )


def _sqlite(path: str) -> URL:
    if path in ("", ":memory:"):
        return URL.create("sqlite")
    if path.startswith("file:"):
        path = path[len("file:") :]
    return URL.create("sqlite", database=path)


def _server(subprotocol: str, remainder: str) -> URL:
    backend = "mysql" if subprotocol == "mariadb" else subprotocol
    drivername = f"{backend}+{DRIVERS[backend]}"
    if not remainder.startswith("//"):
        # jdbc:postgresql:database (host and port defaulted by the driver)
        database, _, query = remainder.partition("?")
        return _with_query(URL.create(drivername, database=database or None), query, backend)
    split = urlsplit("//" + remainder[2:])
    host = split.hostname
    try:
        port = split.port
    except ValueError as e:
        raise UrlError(f"Invalid port in JDBC URL for {subprotocol}") from e
    url = URL.create(
        drivername,
        username=split.username,
        password=split.password,
        host=host,
        port=port,
        database=split.path.lstrip("/") or None,
    )
    return _with_query(url, split.query, backend)


def _with_query(url: URL, query: str, backend: str) -> URL:
    params = dict(parse_qsl(query, keep_blank_values=True))
    user = params.pop("user", None)
    password = params.pop("password", None)
    if user:
        url = url.set(username=user)
    if password:
        url = url.set(password=password)
    passed = {}
    for name, value in params.items():
        name = RENAMED_PARAMETERS[backend].get(name, name)
        if name in PASSED_PARAMETERS[backend]:
            passed[name] = value
        else:
            log.warning(
                "Ignoring JDBC URL parameter %s: the Python %s driver has no such setting", name, backend
            )
    return url.update_query_dict(passed) if passed else url
