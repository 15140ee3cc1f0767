"""The LLM judge: repeated, resumable, rate-limit-aware judging of LoCoMo predictions.

Two protocols behind one interface: `rubric` (0-100, the seed's) and `binary`
(CORRECT/WRONG -> 100/0, the protocol behind the Mem0 paper's J). Every result carries a
signature of what was actually applied (provider, model, sampling, prompt hash, runs).
"""

from locoscore.judge.aggregate import JudgeAggregation, aggregate_runs, sample_std
from locoscore.judge.api import (
    JudgeResult,
    PassResult,
    ajudge_answer_runs,
    judge_answer,
    judge_answer_multiple_runs,
    judge_pass,
    run_pass,
)
from locoscore.judge.prompts import PromptTemplate, build_judge_prompt, load_template
from locoscore.judge.settings import JudgeSettings, ResolvedJudge
from locoscore.llm.cost import PriceTable
from locoscore.llm.providers import SamplingNotSupported, SamplingPlan, resolve_sampling

__all__ = [
    "JudgeAggregation",
    "JudgeResult",
    "JudgeSettings",
    "PassResult",
    "PriceTable",
    "PromptTemplate",
    "ResolvedJudge",
    "SamplingNotSupported",
    "SamplingPlan",
    "aggregate_runs",
    "ajudge_answer_runs",
    "build_judge_prompt",
    "judge_answer",
    "judge_answer_multiple_runs",
    "judge_pass",
    "load_template",
    "resolve_sampling",
    "run_pass",
    "sample_std",
]
