"""A fake LLM provider: a real HTTP server on 127.0.0.1 that the official `anthropic` and
`openai` SDKs talk to through `base_url`, for the judge's tests, dry runs and benchmark.

    with FakeProvider(FakeConfig(faults={"529": 0.1})) as fp:
        client = anthropic.Anthropic(base_url=fp.url, api_key="x")
        client = openai.OpenAI(base_url=fp.openai_url, api_key="x")

Served: Anthropic `POST /v1/messages`, Message Batches (`/v1/messages/batches`, `/{id}`,
`/{id}/results`, `/{id}/cancel`); OpenAI `POST /v1/chat/completions`, `POST /v1/files`,
`GET /v1/files/{id}[/content]`, `POST /v1/batches`, `GET /v1/batches/{id}`,
`POST /v1/embeddings` (hashed bag-of-words vectors; `config.embedding_dims` when the request
names no `dimensions`). No streaming.

Mem0. A json_object chat request carrying mem0's extraction prompt (its "## New Messages" and
"## Observation Date" sections) gets the JSON mem0 expects: one memory per new message, the
message's content as sent (`_mem0_wire`). Graphiti: its json_schema steps (named after its
models: ExtractedEntities, ExtractedEdges, EdgeTimestamps, ...) get one fact per
"Speaker: text" line between the speakers (`_graphiti_wire`). LangMem: a request offering its
`Memory` tool gets one tool call per such line of the session (`_langmem_wire`). A-Mem: its
note analysis and evolution (json_schema "response") get keywords of the note, the context
"Said by <speaker>" and a link to the first neighbour (`_amem_wire`).

Verdicts. Each output takes the next item of `config.scores` (0-100, "CORRECT"/"WRONG", or a
fault name, which forces that fault on the whole request); once the script is used up (or
without one), `config.verdict(user_text)`, else the rule 40 + sha256(last user message) % 61
(the judge's random fence token left out: the same answer judged again gets the same score).
`reference_recall_score` is a ready-made `config.verdict` for judge audits: the share of the
reference's words the fenced candidate contains (`--verdict-rule reference-recall`);
`reference_contains_score` (the reference's words anywhere in the candidate: 100, else 0) and
`reference_exact_score` (the candidate is the reference: 100, else 0) are a lenient and a
strict judge, e.g. two servers of a judge panel.
A score >= 70 is labelled CORRECT. Requests that draw a random fault do not consume the
script. The verdict comes back in the form asked for: `output_config` json_schema or OpenAI
`response_format` json_schema -> JSON filling the schema; a forced (or offered) tool -> a
`tool_use` block; otherwise `{"score", "explanation"}`, or `{"label", "explanation"}` when the
prompt mentions both CORRECT and WRONG. `openai_response_formats` lists the
`response_format` types served (default json_schema and json_object); another type gets the
400 "'response_format' of type ... is not supported" that vLLM-style servers answer.

Faults, at most one per request, drawn from a seeded RNG at the configured rates:
"429" (Retry-After = `retry_after_s`), "quota" (429 saying the credit balance is too low, no
Retry-After), "500", "503", "529" (overloaded_error), "timeout" (hang `timeout_s`, then
answer; nothing is counted if the client hangs up first), "drop" (socket closed, no
response), "bad_json" (prose with "Score: N"), "empty", "refusal", "truncation" (JSON cut,
stop_reason max_tokens / finish_reason length), "expired" (batch entries only). In batches
the error faults become errored entries.

Counting. `requests`: every request except `GET /_fake/stats`; `generation_calls`:
outputs served (a chat completion with n=4 counts 4; batch entries count when the batch is
created); both are updated before the response's last byte is sent. Run as
`python -m locoscore.testing.fake_provider --port 0` to serve from another process; it
prints `listening URL`, and `GET URL/_fake/stats` reports the counters as JSON.
"""

from __future__ import annotations

import argparse
import collections
import signal
from types import FrameType
from typing import Any, Self

from locoscore._http_server import BackgroundServer, ServedInBackground
from locoscore.testing._core import Core, FakeConfig
from locoscore.testing._http import REDACTED, fake_http_server, redact_headers
from locoscore.testing._verdicts import (
    FAULT_TYPES,
    VERDICT_RULES,
    default_score,
    recall_score,
    reference_contains_score,
    reference_exact_score,
    reference_recall_score,
)

__all__ = [
    "FAULT_TYPES",
    "REDACTED",
    "FakeConfig",
    "FakeProvider",
    "default_score",
    "main",
    "recall_score",
    "redact_headers",
    "reference_contains_score",
    "reference_exact_score",
    "reference_recall_score",
]


class FakeProvider(BackgroundServer):
    """The fake provider's server, run in a daemon thread on 127.0.0.1 and a random port."""

    def __init__(self, config: FakeConfig | None = None, host: str = "127.0.0.1", port: int = 0):
        self._core = Core(config or FakeConfig())
        self._host, self._port = host, port
        self._running: ServedInBackground | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> Self:
        if self._running is None:
            self._core.stop_event.clear()
            server = fake_http_server((self._host, self._port), self._core)
            self._running = ServedInBackground(server, "fake-provider")
        return self

    def stop(self) -> None:
        running, self._running = self._running, None
        if running is not None:
            self._core.stop_event.set()
            running.stop()

    def serve_forever(self) -> None:
        """Serve in the calling thread until stop() or a signal (the command-line mode)."""
        running = self.start()._running
        while running is not None and running.is_alive():
            running.join(timeout=0.2)

    # -- addresses ------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._running is None:
            raise RuntimeError("the fake provider is not running")
        return int(self._running.server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL for the anthropic SDK."""
        return f"http://{self._host}:{self.port}"

    @property
    def openai_url(self) -> str:
        """Base URL for the openai SDK."""
        return f"{self.url}/v1"

    # -- configuration and counters -------------------------------------------------------

    @property
    def config(self) -> FakeConfig:
        return self._core.config

    @config.setter
    def config(self, config: FakeConfig) -> None:
        self._core.config = config

    @property
    def generation_calls(self) -> int:
        return self._core.generation_calls

    @property
    def peak_in_flight(self) -> int:
        """The most requests served at once since the start (or `reset_counters`)."""
        return self._core.peak_in_flight

    @property
    def requests(self) -> int:
        return self._core.requests

    @property
    def status_counts(self) -> collections.Counter[int]:
        with self._core.lock:
            return collections.Counter(self._core.status_counts)

    @property
    def fault_counts(self) -> collections.Counter[str]:
        """How often each fault type was injected (an addition to the status counts)."""
        with self._core.lock:
            return collections.Counter(self._core.fault_counts)

    @property
    def requests_log(self) -> list[dict[str, Any]]:
        with self._core.lock:
            return list(self._core.requests_log)

    def reset_counters(self) -> None:
        self._core.reset_counters()


def _parse_faults(text: str) -> dict[str, float]:
    faults: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, rate = item.partition("=")
        try:
            faults[name.strip()] = float(rate)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad fault {item!r}; expected NAME=RATE") from None
    return faults


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m locoscore.testing.fake_provider",
        description="Serve the fake LLM provider until killed.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per generation")
    parser.add_argument("--rpm", type=int, default=None, help="requests-per-minute limit")
    parser.add_argument("--rpm-window", type=float, default=60.0, help="window of --rpm, s")
    parser.add_argument(
        "--faults", type=_parse_faults, default={}, help="e.g. 429=0.1,500=0.05,timeout=0.01"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="hang of a timeout fault")
    parser.add_argument("--retry-after", type=float, default=1.0, help="of an injected 429")
    parser.add_argument("--batch-ready-after-polls", type=int, default=1)
    parser.add_argument(
        "--verdict-rule", choices=sorted(VERDICT_RULES), default="hash", help="see the docstring"
    )
    args = parser.parse_args(argv)
    try:
        config = FakeConfig(
            latency_s=args.latency,
            rpm_limit=args.rpm,
            rpm_window_s=args.rpm_window,
            faults=args.faults,
            seed=args.seed,
            timeout_s=args.timeout,
            retry_after_s=args.retry_after,
            batch_ready_after_polls=args.batch_ready_after_polls,
            verdict=None if args.verdict_rule == "hash" else VERDICT_RULES[args.verdict_rule],
        )
    except ValueError as exc:
        parser.error(str(exc))
    provider = FakeProvider(config, host=args.host, port=args.port)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    provider.start()
    print(f"listening {provider.url}", flush=True)
    try:
        provider.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        provider.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
