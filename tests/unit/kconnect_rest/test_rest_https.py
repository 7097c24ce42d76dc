"""RestServer over HTTPS in process: http and https listeners at once, client certificates, and a
follower forwarding a write to its leader over mutual TLS, with a throwaway CA."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import httpx
import pytest
from kconnect.worker_config import WorkerConfig
from kconnect_rest import RestServer, create_app

from tests.fake_herder import FakeHerder
from tests.throwaway_ca import KEY_PASSWORD, Certificate, CertificateAuthority, make_ca, pem_stores
from tests.unit.kconnect_rest.leader_fakes import FollowerHerder

CONFIG = {"connector.class": "FileStreamSinkConnector", "tasks.max": "1", "topics": "t", "file": "f"}


def tls_props(ca: CertificateAuthority, cert: Certificate, listeners: str, **extra: str) -> dict[str, str]:
    """A worker's listeners with PEM keys under ``listeners.https.``."""
    return {
        "listeners": listeners,
        **pem_stores(cert, ca, "listeners.https."),
        **{f"listeners.https.{k}": v for k, v in extra.items()},
    }


async def started(props: Mapping[str, str], herder: FakeHerder | None = None) -> RestServer:
    config = WorkerConfig.from_props(props)
    server = RestServer(create_app(herder or FakeHerder(), config), config)
    await server.start()
    return server


@pytest.fixture
async def both(ca: CertificateAuthority, server_cert: Certificate) -> AsyncIterator[RestServer]:
    server = await started(tls_props(ca, server_cert, "http://127.0.0.1:0,https://127.0.0.1:0"))
    yield server
    await server.stop()


async def test_http_and_https_listeners_serve_the_same_app(
    both: RestServer, ca: CertificateAuthority
) -> None:
    plain, secure = both.urls
    assert plain.startswith("http://127.0.0.1:") and secure.startswith("https://127.0.0.1:")
    async with httpx.AsyncClient(verify=ca.client_context()) as client:
        for url in both.urls:
            root = await client.get(url + "/")
            assert root.status_code == 200 and "version" in root.json()
            assert (await client.get(url + "/connectors")).json() == []


async def test_a_client_that_does_not_trust_the_ca_is_refused(both: RestServer) -> None:
    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(both.urls[1] + "/")


async def test_plain_http_to_the_https_listener_gets_no_answer(both: RestServer) -> None:
    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx.HTTPError):
            await client.get(both.urls[1].replace("https://", "http://") + "/")


async def test_client_auth_required_refuses_a_client_without_a_certificate(
    ca: CertificateAuthority, server_cert: Certificate, client_cert: Certificate
) -> None:
    server = await started(
        tls_props(ca, server_cert, "https://127.0.0.1:0", **{"ssl.client.auth": "required"})
    )
    try:
        async with httpx.AsyncClient(verify=ca.client_context()) as anonymous:
            with pytest.raises(httpx.HTTPError):
                await anonymous.get(server.url + "/")
        async with httpx.AsyncClient(verify=ca.client_context(client_cert, password=KEY_PASSWORD)) as known:
            assert (await known.get(server.url + "/")).status_code == 200
    finally:
        await server.stop()


async def test_the_app_stops_once_after_every_listener_stopped(
    ca: CertificateAuthority, server_cert: Certificate
) -> None:
    server = await started(tls_props(ca, server_cert, "https://127.0.0.1:0,http://127.0.0.1:0"))
    urls = server.urls
    await server.stop()
    async with httpx.AsyncClient(verify=ca.client_context()) as client:
        for url in urls:
            with pytest.raises(httpx.ConnectError):
                await client.get(url + "/")


async def test_a_follower_forwards_a_write_to_an_https_leader_over_mutual_tls(
    ca: CertificateAuthority, server_cert: Certificate, client_cert: Certificate
) -> None:
    required = {"ssl.client.auth": "required"}
    leader = await started(tls_props(ca, server_cert, "https://127.0.0.1:0", **required))
    # The follower presents its own key store to the leader, as Kafka's RestClient does.
    key_password = {"ssl.key.password": KEY_PASSWORD}
    follower_props = tls_props(ca, client_cert, "https://127.0.0.1:0", **required, **key_password)
    follower = await started(follower_props, FollowerHerder(leader.url + "/"))
    try:
        async with httpx.AsyncClient(verify=ca.client_context(client_cert, password=KEY_PASSWORD)) as client:
            created = await client.post(follower.url + "/connectors", json={"name": "a", "config": CONFIG})
            assert created.status_code == 201, created.text
            assert created.headers["location"] == f"{follower.url}/connectors/a"
            listed = await client.get(leader.url + "/connectors")
            assert listed.json() == ["a"]
    finally:
        await follower.stop()
        await leader.stop()


async def test_a_leader_outside_the_followers_truststore_is_an_io_error(
    ca: CertificateAuthority, server_cert: Certificate, tmp_path_factory: pytest.TempPathFactory
) -> None:
    leader = await started(tls_props(ca, server_cert, "https://127.0.0.1:0"))
    other_ca = make_ca(tmp_path_factory.mktemp("other-ca"))
    follower = await started(
        tls_props(other_ca, other_ca.issue("follower"), "https://127.0.0.1:0"),
        FollowerHerder(leader.url + "/"),
    )
    try:
        async with httpx.AsyncClient(verify=other_ca.client_context()) as client:
            refused = await client.post(follower.url + "/connectors", json={"name": "a", "config": CONFIG})
        assert refused.status_code == 500
        assert refused.json()["message"].startswith("IO Error trying to forward REST request: ")
        assert "CERTIFICATE_VERIFY_FAILED" in refused.json()["message"]
    finally:
        await follower.stop()
        await leader.stop()
