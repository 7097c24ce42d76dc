"""`StoreError` messages of one line that name the store and what was being done (never a secret)."""

from __future__ import annotations

from kconnect_storage.stores import StoreError

_MAX_REASON = 300


def reason(exc: BaseException) -> str:
    """An exception as one line: its type when its text is empty, at most a few hundred characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        text = exc.strerror
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 3] + "..."


def store_error(action: str, store: str, exc: BaseException) -> StoreError:
    """``Could not <action> on <store>: <reason>``, e.g. ``Could not rename a to b on hdfs://nn:9870/``."""
    return StoreError(f"Could not {action} on {store}: {reason(exc)}")
