"""The LLM judge: repeated, resumable, rate-limit-aware judging (each benchmark's own pass
over its answers is in its package under `benchmarks/`).

Two protocols behind one interface: `rubric` (0-100, the seed's) and `binary`
(CORRECT/WRONG -> 100/0, the protocol behind the Mem0 paper's J). Every result carries a
signature of what was actually applied (provider, model, sampling, prompt hash, runs).
"""

from locoscore.judge.engine import PassResult, run_pass
from locoscore.judge.prompts import PromptTemplate, load_template
from locoscore.judge.settings import JudgeSettings, ResolvedJudge
from locoscore.llm.cost import PriceTable
from locoscore.llm.providers import SamplingNotSupported, SamplingPlan, resolve_sampling

__all__ = [
    "JudgeSettings",
    "PassResult",
    "PriceTable",
    "PromptTemplate",
    "ResolvedJudge",
    "SamplingNotSupported",
    "SamplingPlan",
    "load_template",
    "resolve_sampling",
    "run_pass",
]
