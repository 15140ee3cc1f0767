"""`--system http`: any memory server that speaks `locoscore-memory/1` (docs/http-contract.md).

Building the system asks the server who it is (`GET /v1/info`, no retry), and `start()`
asks again (still there, still the same system?): a wrong URL, a server that is down, or
one that does not speak the contract is bad input (one line, exit 2) found before anything
is written or ingested. After that, every call goes through the providers' retry
policy (`locoscore.llm.pool`): 5xx, 408, 429 (at least its Retry-After), timeouts and
connection errors are retried with exponential backoff and jitter, up to `max_attempts`;
other 4xx are not. A call that still fails, or a reply that breaks the contract, raises
`MemoryServerError`, which the run records against the question (or conversation).

The bearer token is read from the environment (`token_env`) and only ever placed in the
request header; error text from the server is scrubbed of it before it goes anywhere.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx

from locoscore.data.conversation import Query, SessionInput
from locoscore.errors import InputError, LocoscoreError
from locoscore.llm.call_errors import REDACTED, redact_secrets
from locoscore.llm.limiter import AdaptiveLimiter
from locoscore.llm.pool import CallPool, RetryPolicy
from locoscore.systems.base import MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.http_contract import (
    CONTRACT_VERSION,
    INFO_PATH,
    ContractError,
    ServerInfo,
    conversation_path,
    parse_answer,
    parse_info,
    parse_items,
    parse_items_in,
    parse_usage,
)
from locoscore.systems.options import OptionSpec, resolve_options

DEFAULT_TOKEN_ENV = "LOCOSCORE_MEMORY_TOKEN"


class MemoryServerError(LocoscoreError):
    """A memory-server call failed after its retries, or its reply broke the contract."""


class HttpSystem(MemorySystem):
    name = "http"
    # Connection settings only: none of them changes what the server returns.
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        "url": OptionSpec(str, None, "the memory server's base URL", in_signature=False),
        "timeout_s": OptionSpec(float, 60.0, "seconds per request", in_signature=False),
        "token_env": OptionSpec(
            str, DEFAULT_TOKEN_ENV, "env variable holding the bearer token", in_signature=False
        ),
        "max_attempts": OptionSpec(
            int, 6, "failed attempts per call before giving up", in_signature=False
        ),
        "retry_base_delay_s": OptionSpec(
            float, 0.5, "first backoff delay (doubles per attempt)", in_signature=False
        ),
        "concurrency": OptionSpec(
            int, 64, "requests in flight at most (shrinks on 429s)", in_signature=False
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        url = self.options["url"]
        if url is None:
            raise InputError("--system http needs --system-option url=http://HOST:PORT")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InputError(f"--system-option url={url}: expected http://HOST:PORT[/PREFIX]")
        self.url = url.rstrip("/")
        self._items_in: dict[str, int] = {}
        self._token: str | None = os.environ.get(self.options["token_env"]) or None
        self._client: httpx.AsyncClient | None = None
        self._pool: CallPool | None = None
        # Asked now, not at start(): the run signature (the server's system and options)
        # and the flags below are needed before the run starts, and a server that is not
        # there is bad input, found before anything is written.
        self.info: ServerInfo = self._ask_info_now()
        # The server decides whether the answer step is its own and whether top-k applies:
        # set on this instance (the base class's defaults are class-wide).
        vars(self)["answers_itself"] = self.info.answers
        vars(self)["ignores_budget"] = self.info.ignores_budget

    # ---------------------------------------------------------------- /v1/info

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._token}"} if self._token else {}

    def _ask_info_now(self) -> ServerInfo:
        try:
            with httpx.Client(
                headers=self._headers(), timeout=httpx.Timeout(self.options["timeout_s"])
            ) as client:
                response = client.get(self.url + INFO_PATH)
        except httpx.TransportError as exc:
            raise self._unreachable(exc) from None
        return self._read_info(response)

    def _unreachable(self, exc: httpx.TransportError) -> InputError:
        where = f"--system-option url={self.url}: {INFO_PATH}"
        if isinstance(exc, httpx.TimeoutException):
            return InputError(f"{where}: no answer within {self.options['timeout_s']:g} s")
        reason = " ".join(self._scrub(str(exc)).split()) or type(exc).__name__
        return InputError(f"{where}: cannot reach the memory server ({reason})")

    def _read_info(self, response: httpx.Response) -> ServerInfo:
        """The `/v1/info` reply checked once, with no retry: a failure is bad input."""
        where = f"--system-option url={self.url}: {INFO_PATH}"
        if response.status_code != 200:
            hint = ""
            if response.status_code in (401, 403):
                hint = f" (is ${self.options['token_env']} set to the server's token?)"
            body = self._scrub(" ".join(response.text.split()))[:200]
            raise InputError(f"{where}: HTTP {response.status_code} {body}{hint}".rstrip())
        try:
            return parse_info(response.json())
        except ValueError:
            raise InputError(
                f"{where}: the reply is not JSON (is this a {CONTRACT_VERSION} server?)"
            ) from None
        except ContractError as exc:
            raise InputError(f"{where}: {exc}") from None

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Still there, and still the same system? Then open the pooled client."""
        concurrency = self.options["concurrency"]
        self._client = httpx.AsyncClient(
            base_url=self.url,
            headers=self._headers(),
            timeout=httpx.Timeout(self.options["timeout_s"]),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        try:
            try:
                response = await self._client.get(INFO_PATH)
            except httpx.TransportError as exc:
                raise self._unreachable(exc) from None
            info = self._read_info(response)
            if info != self.info:
                raise InputError(
                    f"--system-option url={self.url}: the server changed since it was first "
                    f"asked ({self.info.system} {self.info.options} -> {info.system} "
                    f"{info.options}); the run signature would be wrong"
                )
        except BaseException:
            await self.aclose()
            raise
        policy = RetryPolicy(
            max_attempts=self.options["max_attempts"],
            base_delay_s=self.options["retry_base_delay_s"],
            timeout_s=self.options["timeout_s"],
        )
        self._pool = CallPool(AdaptiveLimiter(concurrency, concurrency), policy)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    # ---------------------------------------------------------------- calls

    def _scrub(self, text: str) -> str:
        """Server text with every credential removed (servers may echo what they got)."""
        text = redact_secrets(text)
        return text.replace(self._token, REDACTED) if self._token else text

    async def _post(self, path: str, body: dict[str, Any], where: str) -> dict[str, Any]:
        if self._client is None or self._pool is None:
            raise MemoryServerError(f"{where}: the http system was not started")
        client = self._client

        async def send() -> httpx.Response:
            response = await client.post(path, json=body)
            response.raise_for_status()
            return response

        outcome = await self._pool.call(send)
        if outcome.stopped is not None:
            raise MemoryServerError(f"{where}: not sent: {self._scrub(outcome.stopped)}")
        if outcome.error is not None:
            error = dataclasses.replace(outcome.error, message=self._scrub(outcome.error.message))
            raise MemoryServerError(f"{where}: {error.kind}: {error.message}")
        assert outcome.value is not None
        try:
            data = outcome.value.json()
        except ValueError:
            raise MemoryServerError(f"{where}: the reply is not JSON") from None
        if not isinstance(data, dict):
            raise MemoryServerError(f"{where}: the reply is not a JSON object")
        return data

    def _note_items_in(self, conversation_id: str, reply: dict[str, Any], where: str) -> None:
        count = parse_items_in(reply, where)
        if count is not None:
            self._items_in[conversation_id] = count

    async def reset(self, conversation_id: str) -> None:
        where = f"reset {conversation_id}"
        reply = await self._post(conversation_path(conversation_id, "reset"), {}, where)
        self._items_in.pop(conversation_id, None)
        try:
            self._note_items_in(conversation_id, reply, "reply")
        except ContractError as exc:
            raise MemoryServerError(f"{where}: malformed reply: {exc}") from None

    async def add(self, session: SessionInput) -> Usage:
        conversation_id = session.conversation_id
        where = f"add {conversation_id} session {session.index}"
        path = conversation_path(conversation_id, "sessions")
        reply = await self._post(path, session.to_json(), where)
        try:
            usage = parse_usage(reply, "reply")
            self._note_items_in(conversation_id, reply, "reply")
        except ContractError as exc:
            raise MemoryServerError(f"{where}: malformed reply: {exc}") from None
        return usage  # the run sums it per conversation into run.json

    async def search(self, query: Query) -> SearchResult:
        answers = self.answers_itself
        action = "answer" if answers else "search"
        where = f"{action} {query.question_id}"
        path = conversation_path(query.conversation_id, action)
        reply = await self._post(path, query.to_json(), where)
        try:
            return SearchResult(
                items=parse_items(reply, "reply", required=not answers),
                usage=parse_usage(reply, "reply"),
                answer=parse_answer(reply, "reply") if answers else None,
            )
        except ContractError as exc:
            raise MemoryServerError(f"{where}: malformed reply: {exc}") from None

    # ---------------------------------------------------------------- what the run records

    def signature_options(self) -> dict[str, str]:
        """The server's own system and options (the URL and timeouts change nothing)."""
        signature = {"contract": self.info.contract, "server": self.info.system}
        signature.update({f"server.{k}": v for k, v in self.info.options.items()})
        if self.info.answers:
            signature["answers"] = "server"
        return signature

    def items_in(self, conversation_id: str) -> int | None:
        return self._items_in.get(conversation_id)
