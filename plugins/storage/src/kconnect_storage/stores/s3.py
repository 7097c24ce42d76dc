"""`S3Store`: objects in an S3 bucket (AWS or any S3-compatible server), published by completing a
multipart upload.

S3 has no rename, and a file's key is only known when it is sealed (its name carries its last
offset). So a staged file is spooled to a local temporary file; `S3StagedFile.seal` starts the
multipart upload of the final key, uploads the parts (`S3Settings.part_size` each, the last one
smaller) and does *not* complete it: the token holds the key, the upload id and the parts' ETags.
An uncompleted upload is invisible to readers and listings. `S3Store.publish` completes it (a
completed upload is gone, so a second completion finds the object there and is done);
`S3Store.discard_unpublished` aborts a crashed task's uploads, found by listing the bucket's
pending uploads under the folder. `S3Store.write_whole` is one ``PutObject``, which S3 makes
visible whole or not at all.

Every request has a time limit (connect and read) and botocore retries it `S3Settings.part_retries`
times, so a server that stops answering fails the operation instead of hanging the task.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from kconnect_storage.naming import join
from kconnect_storage.stores import StoreError, Token
from kconnect_storage.stores.errors import reason

MULTIPART_KIND = "s3-multipart"
_MISSING = {"NoSuchKey", "404", "NotFound"}

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class S3Settings:
    """How to reach a bucket and how to write to it (parsed from Confluent's keys by
    `kconnect_storage.stores.config`)."""

    bucket: str
    prefix: str = ""
    region: str | None = None
    endpoint_url: str | None = None
    access_key_id: str | None = None
    secret_access_key: str | None = None
    part_size: int = 25 * 1024 * 1024
    part_retries: int = 3
    path_style: bool = True
    accelerate: bool = False
    timeout: float = 30.0
    proxy_url: str | None = None
    server_side_encryption: str | None = None
    kms_key_id: str | None = None
    canned_acl: str | None = None

    def object_arguments(self) -> dict[str, str]:
        """What every new object gets (``PutObject``, ``CreateMultipartUpload``): encryption, ACL."""
        arguments: dict[str, str] = {}
        if self.server_side_encryption:
            arguments["ServerSideEncryption"] = self.server_side_encryption
        if self.kms_key_id:
            arguments["SSEKMSKeyId"] = self.kms_key_id
        if self.canned_acl:
            arguments["ACL"] = self.canned_acl
        return arguments


def _error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _client_reason(error: BaseException) -> str:
    if isinstance(error, ClientError):
        details = error.response.get("Error", {})
        code, message = details.get("Code", ""), details.get("Message", "")
        return " ".join(f"{code}: {message}".split()).strip(": ") or reason(error)
    return reason(error)


class S3StagedFile:
    """A file spooled to local disk until it is sealed and uploaded in parts."""

    def __init__(self, store: S3Store) -> None:
        """A new, empty spool file (deleted when closed)."""
        self._store = store
        try:
            self._spool: IO[bytes] = tempfile.TemporaryFile(prefix="kconnect-s3-")
        except OSError as e:
            raise StoreError(
                f"Could not create a local spool file for {store.description}: {reason(e)}"
            ) from e

    def write(self, data: bytes) -> int:
        """Append bytes to the spool file."""
        try:
            return self._spool.write(data)
        except (OSError, ValueError) as e:
            raise StoreError(f"Could not spool a file for {self._store.description}: {reason(e)}") from e

    def tell(self) -> int:
        """How many bytes were written so far."""
        return self._spool.tell()

    def flush(self) -> None:
        """Nothing to do: the bytes are uploaded at `seal`."""

    def seal(self, final_path: str) -> Token:
        """Upload the spooled bytes as the parts of a multipart upload of `final_path`, left uncompleted;
        return the token that completes it. The spool file is deleted."""
        try:
            return self._store.upload_parts(final_path, self._spool)
        finally:
            self._spool.close()

    def discard(self) -> None:
        """Delete the spool file; nothing was uploaded."""
        self._spool.close()


class S3Store:
    """Objects under a prefix of a bucket; see the module docstring."""

    def __init__(self, settings: S3Settings) -> None:
        """Make the boto3 client (credentials from `settings`, else the AWS chain: environment, files,
        instance roles)."""
        self.settings = settings
        self._prefix = settings.prefix.strip("/")
        where = f" at {settings.endpoint_url}" if settings.endpoint_url else ""
        self._description = f"s3://{join(settings.bucket, self._prefix)}{where}"
        config = Config(
            connect_timeout=settings.timeout,
            read_timeout=settings.timeout,
            retries={"total_max_attempts": settings.part_retries + 1, "mode": "standard"},
            s3={
                "addressing_style": "path" if settings.path_style else "auto",
                "use_accelerate_endpoint": settings.accelerate,
            },
            proxies={"http": settings.proxy_url, "https": settings.proxy_url} if settings.proxy_url else None,
        )
        try:
            self._client: Any = boto3.session.Session().client(
                "s3",
                region_name=settings.region or None,
                endpoint_url=settings.endpoint_url or None,
                aws_access_key_id=settings.access_key_id or None,
                aws_secret_access_key=settings.secret_access_key or None,
                config=config,
            )
        except (BotoCoreError, ValueError) as e:
            raise StoreError(f"Could not open {self._description}: {reason(e)}") from e

    @property
    def description(self) -> str:
        """``s3://bucket/prefix`` and the endpoint, if not AWS's."""
        return self._description

    def key(self, path: str) -> str:
        """The object key of a path relative to the prefix."""
        return join(self._prefix, path)

    def failure(self, action: str, error: BaseException) -> StoreError:
        """The `StoreError` for a failed `action`, naming this store and S3's answer."""
        return StoreError(f"Could not {action} on {self._description}: {_client_reason(error)}")

    def call(self, action: str, function: Callable[..., _T], **kwargs: Any) -> _T:
        """Run a boto3 request on the bucket; a failure becomes a `StoreError` saying `action`."""
        try:
            return function(Bucket=self.settings.bucket, **kwargs)
        except (ClientError, BotoCoreError) as e:
            raise self.failure(action, e) from e

    def stage(self, directory: str, name_prefix: str) -> S3StagedFile:
        """A new spooled file; S3 hears of it only at `S3StagedFile.seal`."""
        return S3StagedFile(self)

    def upload_parts(self, path: str, spool: IO[bytes]) -> Token:
        """Start a multipart upload of `path` and upload `spool`'s bytes as its parts, uncompleted;
        called by `S3StagedFile.seal`. An upload that fails half-way is aborted."""
        key = self.key(path)
        upload_id = self.call(
            f"start the upload of {path}",
            self._client.create_multipart_upload,
            Key=key,
            **self.settings.object_arguments(),
        )["UploadId"]
        parts: list[dict[str, Any]] = []
        try:
            spool.seek(0)
            while True:
                body = spool.read(self.settings.part_size)
                if not body and parts:
                    break
                number = len(parts) + 1
                answer = self.call(
                    f"upload part {number} of {path}",
                    self._client.upload_part,
                    Key=key,
                    UploadId=upload_id,
                    PartNumber=number,
                    Body=body,
                )
                parts.append({"PartNumber": number, "ETag": answer["ETag"]})
                if len(body) < self.settings.part_size:
                    break
        except BaseException:
            # The upload's own error is the one to report; an upload left behind by a failed abort
            # is aborted by discard_unpublished when the partition is recovered.
            with contextlib.suppress(StoreError):
                self._abort(key, upload_id)
            raise
        return {"kind": MULTIPART_KIND, "key": key, "upload_id": upload_id, "parts": parts}

    def _abort(self, key: str, upload_id: str) -> None:
        try:
            self._client.abort_multipart_upload(Bucket=self.settings.bucket, Key=key, UploadId=upload_id)
        except (ClientError, BotoCoreError) as e:
            if not isinstance(e, ClientError) or _error_code(e) != "NoSuchUpload":
                raise self.failure(f"abort the upload of {key}", e) from e

    def _parse(self, token: Token) -> tuple[str, str, list[dict[str, Any]]]:
        if token.get("kind") != MULTIPART_KIND:
            raise StoreError(
                f"Could not publish on {self._description}: {dict(token)!r} is not a multipart token"
            )
        return str(token["key"]), str(token["upload_id"]), [dict(p) for p in token["parts"]]

    def _exists(self, key: str) -> bool:
        try:
            self._client.head_object(Bucket=self.settings.bucket, Key=key)
        except (ClientError, BotoCoreError) as e:
            if isinstance(e, ClientError) and _error_code(e) in _MISSING:
                return False
            raise self.failure(f"look up {key}", e) from e
        return True

    def publish(self, token: Token) -> None:
        """Complete the multipart upload; done already if the upload is gone and the object is there."""
        key, upload_id, parts = self._parse(token)
        try:
            self._client.complete_multipart_upload(
                Bucket=self.settings.bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
        except (ClientError, BotoCoreError) as e:
            if isinstance(e, ClientError) and _error_code(e) == "NoSuchUpload" and self._exists(key):
                return
            raise self.failure(f"complete the upload of {key}", e) from e

    def discard(self, token: Token) -> None:
        """Abort a sealed, unpublished upload."""
        key, upload_id, _ = self._parse(token)
        self._abort(key, upload_id)

    def discard_unpublished(self, directory: str, name_prefix: str) -> int:
        """Abort the pending uploads under `directory` (recursively) whose names start with
        `name_prefix` (staged files that were never sealed were only spooled on the crashed
        machine: nothing to do)."""
        folder = self.key(directory)
        pending: list[tuple[str, str]] = []
        paginator = self._client.get_paginator("list_multipart_uploads")
        try:
            for page in paginator.paginate(
                Bucket=self.settings.bucket, Prefix=f"{folder}/" if folder else ""
            ):
                pending.extend(
                    (u["Key"], u["UploadId"])
                    for u in page.get("Uploads", [])
                    if u["Key"].rsplit("/", 1)[-1].startswith(name_prefix)
                )
        except (ClientError, BotoCoreError) as e:
            raise self.failure(f"list the pending uploads of {directory or '/'}", e) from e
        for key, upload_id in pending:
            self._abort(key, upload_id)
        return len(pending)

    def list_files(self, directory: str) -> list[str]:
        """Every object under `directory`, as paths from the prefix."""
        folder = self.key(directory)
        found: list[str] = []
        paginator = self._client.get_paginator("list_objects_v2")
        try:
            for page in paginator.paginate(
                Bucket=self.settings.bucket, Prefix=f"{folder}/" if folder else ""
            ):
                found.extend(o["Key"] for o in page.get("Contents", []))
        except (ClientError, BotoCoreError) as e:
            raise self.failure(f"list {directory or '/'}", e) from e
        cut = len(self._prefix) + 1 if self._prefix else 0
        return sorted(k[cut:] for k in found if not k.endswith("/"))

    def read(self, path: str) -> bytes:
        """An object's bytes."""
        answer: dict[str, Any] = self.call(f"read {path}", self._client.get_object, Key=self.key(path))
        try:
            return bytes(answer["Body"].read())
        except (BotoCoreError, OSError) as e:
            raise self.failure(f"read {path}", e) from e

    def write_whole(self, path: str, data: bytes) -> None:
        """One ``PutObject``: visible whole or not at all, replacing the object of that key."""
        self.call(
            f"write {path}",
            self._client.put_object,
            Key=self.key(path),
            Body=data,
            **self.settings.object_arguments(),
        )

    def delete(self, path: str) -> None:
        """Delete an object; S3 answers the same when there is none."""
        self.call(f"delete {path}", self._client.delete_object, Key=self.key(path))

    def close(self) -> None:
        """Close the client's connections."""
        self._client.close()

    def probe(self) -> None:
        """Check that the bucket exists and these credentials may use it (``HeadBucket``)."""
        self.call("reach the bucket", self._client.head_bucket)
