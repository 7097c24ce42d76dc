"""connection.url: JDBC and SQLAlchemy URLs to one SQLAlchemy URL; passwords never shown."""

from __future__ import annotations

import pytest
from kconnect_jdbc.urls import UrlError, backend_name, describe_url, to_sqlalchemy_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("jdbc:postgresql://db.example:5432/shop", "postgresql+psycopg://db.example:5432/shop"),
        (
            "jdbc:postgresql://db.example/shop?sslmode=require",
            "postgresql+psycopg://db.example/shop?sslmode=require",
        ),
        ("jdbc:postgresql:shop", "postgresql+psycopg:///shop"),
        ("jdbc:mysql://10.0.0.5:3306/sales", "mysql+pymysql://10.0.0.5:3306/sales"),
        ("jdbc:mariadb://localhost/sales", "mysql+pymysql://localhost/sales"),
        ("jdbc:sqlite:/var/data/app.db", "sqlite:////var/data/app.db"),
        ("jdbc:sqlite:relative.db", "sqlite:///relative.db"),
        ("jdbc:sqlite::memory:", "sqlite://"),
        ("postgresql://h/d", "postgresql+psycopg://h/d"),
        ("mysql://h/d", "mysql+pymysql://h/d"),
        ("postgresql+psycopg://h:1/d", "postgresql+psycopg://h:1/d"),
        ("sqlite:///x.db", "sqlite:///x.db"),
    ],
)
def test_urls_translate(url: str, expected: str) -> None:
    assert describe_url(to_sqlalchemy_url(url)) == expected


def test_user_and_password_keys_fill_the_url_and_the_password_is_masked() -> None:
    url = to_sqlalchemy_url("jdbc:postgresql://h:5432/d", "alice", "s3cret")
    assert (url.username, url.password) == ("alice", "s3cret")
    assert "s3cret" not in describe_url(url)
    assert describe_url(url) == "postgresql+psycopg://alice:***@h:5432/d"


def test_jdbc_user_and_password_parameters_move_to_the_credentials() -> None:
    url = to_sqlalchemy_url("jdbc:mysql://h/d?user=bob&password=pw&charset=utf8mb4")
    assert (url.username, url.password, dict(url.query)) == ("bob", "pw", {"charset": "utf8mb4"})


def test_jdbc_only_parameters_are_dropped_or_renamed() -> None:
    mysql = to_sqlalchemy_url("jdbc:mysql://h/d?useSSL=false&serverTimezone=UTC")
    assert dict(mysql.query) == {}
    postgres = to_sqlalchemy_url("jdbc:postgresql://h/d?ApplicationName=app&sslmode=require&ssl=true")
    assert dict(postgres.query) == {"application_name": "app", "sslmode": "require"}


def test_backend_names() -> None:
    assert backend_name(to_sqlalchemy_url("jdbc:mariadb://h/d")) == "mysql"
    assert backend_name(to_sqlalchemy_url("jdbc:postgresql://h/d")) == "postgresql"
    assert backend_name(to_sqlalchemy_url("jdbc:sqlite:a.db")) == "sqlite"


@pytest.mark.parametrize("url", ["", "jdbc:oracle:thin:@h:1521:x", "not a url"])
def test_unsupported_urls_are_refused(url: str) -> None:
    with pytest.raises(UrlError):
        to_sqlalchemy_url(url)
