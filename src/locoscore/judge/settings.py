"""A judge configuration, resolved once: the prompt, the sampling applied, the signature."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from locoscore._version import __version__
from locoscore.errors import InputError
from locoscore.judge.cache import JudgeIdentity
from locoscore.judge.prompts import PROTOCOLS, PromptTemplate, builtin_template, output_schema
from locoscore.llm.cost import PriceTable
from locoscore.llm.endpoint import Endpoint, Served, resolve_endpoint
from locoscore.llm.endpoint_pool import EndpointPool
from locoscore.llm.providers import (
    DEFAULT_MODELS,
    PROVIDERS,
    ProviderConfig,
    SamplingPlan,
    resolve_sampling,
)

# --response-format choices; "text" is RESPONSE_FORMATS' "none" (no response_format sent).
RESPONSE_FORMAT_CHOICES: dict[str, str] = {
    "json_schema": "json_schema",
    "json_object": "json_object",
    "text": "none",
}
# The seed's rubric runs at temperature 0.5; the binary protocol (Mem0's J) at 0.
DEFAULT_TEMPERATURE = {"rubric": 0.5, "binary": 0.0}


@dataclass
class JudgeSettings:
    """What the user asked for. `resolve()` turns it into what will be applied."""

    protocol: str = "rubric"
    provider: str = "anthropic"
    model: str | None = None
    base_url: str | None = None
    pool: EndpointPool | None = None  # several endpoints serving the judge model
    runs: int = 10
    temperature: float | None = None  # None: the protocol's default
    use_model_default_sampling: bool = False
    api_version: str | None = None
    max_tokens: int = 256
    concurrency: int = 32
    timeout_s: float = 60.0
    max_attempts: int = 6  # per call, for retryable errors only
    retry_base_delay_s: float = 0.5  # backoff doubles per attempt; Retry-After wins if longer
    template: PromptTemplate | None = None
    include_adversarial: bool = False
    # The signature's `adv:` part says whether an excluded type (LoCoMo's category 5) was
    # judged; a benchmark with no excluded type has nothing to say (`Benchmark.
    # excluded_from_overall` decides, in the commands), so the part is left out.
    signs_exclusion: bool = True
    max_cost_usd: float | None = None
    prices: PriceTable = field(default_factory=PriceTable)
    n_per_request: int | None = None  # OpenAI `n`: runs served by one request (None: all)
    # --response-format: json_schema | json_object | text, forced (never negotiated); None:
    # json_schema, downgraded once if a compatible server rejects it.
    response_format: str | None = None

    def resolve(self) -> ResolvedJudge:
        if self.protocol not in PROTOCOLS:
            raise InputError(f"unknown protocol {self.protocol!r} (expected rubric or binary)")
        if self.provider not in PROVIDERS:
            raise InputError(
                f"unknown provider {self.provider!r} (expected {', '.join(PROVIDERS)})"
            )
        if self.runs < 1:
            raise InputError("--runs must be at least 1")
        if self.concurrency < 1:
            raise InputError("--concurrency must be at least 1")
        if self.response_format is not None:
            if self.response_format not in RESPONSE_FORMAT_CHOICES:
                choices = ", ".join(RESPONSE_FORMAT_CHOICES)
                raise InputError(
                    f"{self.response_format!r}: expected one of {choices}",
                    field="--response-format",
                )
            if self.provider == "anthropic" and self.response_format != "json_schema":
                raise InputError(
                    "anthropic takes only json_schema (output_config)", field="--response-format"
                )
        model = self.model or DEFAULT_MODELS.get(self.provider)
        if not model:
            raise InputError(f"--model is required for provider {self.provider}")
        template = self.template or builtin_template(self.protocol)
        if template.protocol != self.protocol:
            raise InputError(
                f"prompt template declares protocol {template.protocol}, not {self.protocol}"
            )
        if self.max_cost_usd is not None and self.prices.prices.get(model) is None:
            # Without a price every estimate is unknown and the cap could never stop a call.
            raise InputError(
                f"needs a price for model {model}: add it with --prices FILE",
                field="--max-cost",
            )
        temperature = (
            self.temperature if self.temperature is not None else DEFAULT_TEMPERATURE[self.protocol]
        )
        sampling = resolve_sampling(
            self.provider,
            model,
            temperature,
            use_model_default=self.use_model_default_sampling,
            api_version=self.api_version,
        )
        if self.pool is not None:
            self.pool.check_model(model)
            endpoint: Endpoint = self.pool.endpoint()
        else:
            endpoint = resolve_endpoint(self.provider, self.base_url)
        return ResolvedJudge(self, model, template, sampling, endpoint)


@dataclass(frozen=True)
class ResolvedJudge:
    settings: JudgeSettings
    model: str
    template: PromptTemplate
    sampling: SamplingPlan
    endpoint: Endpoint

    @property
    def protocol(self) -> str:
        return self.settings.protocol

    @property
    def provider(self) -> str:
        return self.settings.provider

    @property
    def prompt_hash(self) -> str:
        return self.template.version_hash

    def cache_params(self) -> dict[str, Any]:
        """Every parameter that can change a verdict, for the cache key."""
        return {**self.sampling.cache_params(), "max_tokens": self.settings.max_tokens}

    def cache_identity(self) -> JudgeIdentity:
        """This judge as its cached verdicts are keyed and stored."""
        return JudgeIdentity(
            self.provider,
            self.endpoint.url,
            self.model,
            self.protocol,
            self.prompt_hash,
            self.cache_params(),
        )

    @property
    def n_per_request(self) -> int:
        if self.provider == "anthropic":
            return 1  # the Messages API has no `n`
        return max(1, self.settings.n_per_request or self.settings.runs)

    def provider_config(self) -> ProviderConfig:
        return ProviderConfig(
            provider=self.provider,
            model=self.model,
            sampling=self.sampling,
            output_schema=output_schema(self.protocol),
            schema_name=f"judge_{self.protocol}",
            max_tokens=self.settings.max_tokens,
            base_url=self.settings.base_url,
            timeout_s=self.settings.timeout_s,
            concurrency=self.settings.concurrency,
            response_format=RESPONSE_FORMAT_CHOICES.get(self.settings.response_format or ""),
        )

    def describe(self, served: Served | None = None) -> dict[str, Any]:
        """The judge as applied, for the summaries that name it (judge and audit); with
        `served`, what the server said it was (the signature then names it)."""
        return {
            "signature": self.signature_with(served),
            "protocol": self.protocol,
            "provider": self.provider,
            "model": self.model,
            "endpoint": self.endpoint.to_json(),
            **({} if self.settings.pool is None else {"pool": self.settings.pool.to_json()}),
            "served": (served or Served()).to_json(),
            "temperature": self.sampling.temperature,
            "api_version": self.sampling.api_version,
            "runs": self.settings.runs,
            "prompt_hash": self.prompt_hash,
            "prompt_name": self.template.name,
        }

    @property
    def signature(self) -> str:
        """sacreBLEU-style: what was applied, never what was merely asked for."""
        s = self.settings
        return (
            f"judge:{self.protocol}|prompt:{self.prompt_hash}{self._reader_part}"
            f"|provider:{self.provider}"
            f"{self.endpoint.signature}|model:{self.model}|{self.sampling.signature}"
            f"|max_tokens:{s.max_tokens}"
            f"|runs:{s.runs}{self._adversarial_part}|std:sample|version:{__version__}"
        )

    @property
    def _reader_part(self) -> str:
        """`|reader:NAME` when the template's replies are read by a benchmark's own reader."""
        reader = self.template.reader
        return "" if reader is None else f"|reader:{reader.name}"

    @property
    def _adversarial_part(self) -> str:
        s = self.settings
        return f"|adv:{'yes' if s.include_adversarial else 'no'}" if s.signs_exclusion else ""

    def signature_with(self, served: Served | None) -> str:
        """The signature with what the server said it served (`served:`, `fake`) after the
        model it was asked for."""
        if served is None or not served.signature:
            return self.signature
        head, model, tail = self.signature.partition(f"|model:{self.model}")
        return f"{head}{model}{served.signature}{tail}"


def settings_of_section(section: dict[str, Any], *, signs_exclusion: bool) -> JudgeSettings:
    """The settings a judge section records (`ResolvedJudge.describe` and its signature),
    to judge again from its cache: the merge of judged shards. The prompt is the judge's
    default (a benchmark's own, or the protocol's): a user's template is not recorded, and
    a judge of it finds no cached verdict (the caller checks that none is missing).
    InputError naming what the section lacks."""
    try:
        parts = dict(p.split(":", 1) for p in str(section["signature"]).split("|") if ":" in p)
        endpoint = section.get("endpoint") or {}
        temperature = section["temperature"]
        members = endpoint.get("members")
        pool = None
        if members:  # a pool: its members as recorded (nothing is sent to them)
            from locoscore.llm.endpoint_pool import PoolMember

            pool = EndpointPool(tuple(PoolMember(str(u)) for u in members), "the judge section")
        return JudgeSettings(
            protocol=str(section["protocol"]),
            provider=str(section["provider"]),
            model=str(section["model"]),
            base_url=None if endpoint.get("default", True) or pool else str(endpoint["url"]),
            pool=pool,
            runs=int(section["runs"]),
            temperature=None if temperature is None else float(temperature),
            use_model_default_sampling=temperature is None,
            api_version=section.get("api_version"),
            max_tokens=int(parts["max_tokens"]),
            include_adversarial=bool(section.get("include_adversarial", parts.get("adv") == "yes")),
            signs_exclusion=signs_exclusion,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"the judge section records no {exc}", field="judge") from None
