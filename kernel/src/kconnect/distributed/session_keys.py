"""The leader's duty of KIP-507: keep a fresh session key in the config topic while it leads.

The distributed herder's `Leadership` (`kconnect.herder.leadership`) calls `SessionKeyKeeper.on_lead`
after each assignment that makes this worker the leader of a ``sessioned`` group: the keeper writes
a new key at once when there is none or it expired
(`kconnect.distributed.request_signing.needs_rotation`), then checks again in the background every
`KEY_CHECK_INTERVAL_S` (or sooner, for a short ``inter.worker.key.ttl.ms``) for as long as
`still_leading()` says so. Followers only read keys (the config store keeps the newest).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from kconnect.distributed.request_signing import InterWorkerKeyConfig, generate_session_key, needs_rotation
from kconnect.model import SessionKey

log = logging.getLogger(__name__)

KEY_CHECK_INTERVAL_S = 60.0
"""How often the leader checks whether the session key must be rotated."""


class SessionKeyKeeper:
    """Writes session keys while this worker leads; `close` when the worker stops."""

    def __init__(
        self,
        config: InterWorkerKeyConfig,
        current: Callable[[], SessionKey | None],
        write: Callable[[SessionKey], Awaitable[None]],
        still_leading: Callable[[], bool],
    ) -> None:
        self._config = config
        self._current = current
        self._write = write
        self._still_leading = still_leading
        self._task: asyncio.Task[None] | None = None

    async def on_lead(self) -> None:
        """This worker leads now: write a key if needed, and keep checking in the background.

        Never raises (the group member calls this through `Leadership`): a key that cannot be written
        is logged and tried again at the next check."""
        try:
            await self._rotate()
        except Exception:
            log.error("Could not write a new session key; trying again later", exc_info=True)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._keep(), name="session key")

    async def _rotate(self) -> None:
        now_ms = int(time.time() * 1000)
        if needs_rotation(self._current(), self._config, now_ms):
            log.info("Writing a new session key for internal requests")
            await self._write(generate_session_key(self._config, now_ms))

    async def _keep(self) -> None:
        interval = min(KEY_CHECK_INTERVAL_S, max(1.0, self._config.key_ttl_ms / 4000))
        while True:
            await asyncio.sleep(interval)
            if not self._still_leading():
                return
            try:
                await self._rotate()
            except Exception:
                log.error("Could not write a new session key; trying again later", exc_info=True)

    def close(self) -> None:
        """Stop checking (the worker stops)."""
        if self._task is not None:
            self._task.cancel()
