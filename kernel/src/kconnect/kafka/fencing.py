"""Fencing out transactional producers by id (Kafka's ``Admin.fenceProducers``), for zombie fencing.

Kafka's admin client fences a ``transactional.id`` by sending InitProducerId for it: the broker
bumps the id's epoch, aborts the transaction its current producer left open, and refuses every
later write of that producer (ProducerFenced). aiokafka's admin client has no such call, but a
transactional producer's start sends exactly that request, so `fence_producers` starts (and
closes) one producer per id. The leader of a distributed group does it for the task producers of a
source connector's previous generation before a new generation's task configs are written
(KIP-618).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from kconnect.config.client_properties import ClientKind
from kconnect.kafka.clients import internal_kwargs

log = logging.getLogger(__name__)

#: How long fencing may take in all (Kafka's fencing uses the REST request timeout, 90 s).
FENCING_TIMEOUT_S = 90.0


class FencingError(Exception):
    """A transactional id could not be fenced; the message names it and the broker's error."""


async def _fence_one(worker: Mapping[str, str], transactional_id: str) -> None:
    kwargs = internal_kwargs(worker, ClientKind.PRODUCER)
    kwargs.update(client_id=f"connect-fencing-{transactional_id}", transactional_id=transactional_id)
    producer = AIOKafkaProducer(**kwargs)
    try:
        await producer.start()  # InitProducerId: bumps the epoch, aborts the open transaction
    except KafkaError as exc:
        raise FencingError(
            f"Could not fence out the producers of transactional id {transactional_id}: {exc!r}"
        ) from exc
    finally:
        await producer.stop()


async def fence_producers(
    worker: Mapping[str, str], transactional_ids: Sequence[str], timeout_s: float = FENCING_TIMEOUT_S
) -> None:
    """Fence out every producer of these transactional ids, with the worker's own client settings.

    Returns once each id's epoch was bumped; raises FencingError (or TimeoutError after `timeout_s`).
    """
    if not transactional_ids:
        return
    await asyncio.wait_for(asyncio.gather(*(_fence_one(worker, tid) for tid in transactional_ids)), timeout_s)
    log.info("Fenced out the producers of transactional ids %s", ", ".join(transactional_ids))
