"""A complete benchmark in one file: three short dated conversations, six questions of two
types, one metric and the judge's rules. Everything else (run, judge, report, board,
compare) is locoscore's generic machinery reading these parts.

    cd examples
    locoscore run --benchmark python:tiny_benchmark:BENCHMARK --system bm25 --top-k 1 \\
        --answer-provider extractive --out out/tiny-turn
"""

from __future__ import annotations

import re

from locoscore.benchmarks import Benchmark, QuestionType
from locoscore.generic.parts import JudgeRules, Metric


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def gold_recall(prediction: str, gold: str) -> float:
    """Share of the gold answer's words that the prediction contains."""
    gold_words, said = _words(gold), set(_words(prediction))
    return sum(w in said for w in gold_words) / len(gold_words)


# Dated sessions of [speaker, text] turns; turn j of session i is "S<i>:<j>" in `evidence`.
DATA = {
    "conversations": [
        {"id": "ana", "sessions": [
            {"date": "2024-03-02", "turns": [
                ["Ana", "Guess what, I adopted a grey kitten named Miso today."],
                ["Bot", "Congratulations! How is Miso settling in?"]]},
            {"date": "2024-04-15", "turns": [
                ["Ana", "I started pottery classes on Tuesday evenings."],
                ["Bot", "Pottery sounds relaxing."]]}]},
        {"id": "ben", "sessions": [
            {"date": "2024-05-10", "turns": [
                ["Ben", "My sister Clara moved to Lisbon last week."],
                ["Bot", "Lisbon is lovely in spring."]]},
            {"date": "2024-06-01", "turns": [
                ["Ben", "I ran my first marathon in Berlin this morning."]]}]},
        {"id": "cho", "sessions": [
            {"date": "2024-07-20", "turns": [
                ["Cho", "Our team shipped the new billing app today."]]},
            {"date": "2024-08-03", "turns": [["Cho", "I am learning to play the cello now."]]}]},
    ],
    "questions": [
        {"id": "ana-1", "conversation": "ana", "type": "fact", "evidence": ["S1:1"],
         "question": "What is the name of the kitten Ana adopted?", "answer": "Miso"},
        {"id": "ana-2", "conversation": "ana", "type": "when", "evidence": ["S2:1"],
         "question": "When did Ana start pottery classes?", "answer": "April 2024"},
        {"id": "ben-1", "conversation": "ben", "type": "fact", "evidence": ["S1:1"],
         "question": "Which city did Ben's sister Clara move to?", "answer": "Lisbon"},
        {"id": "ben-2", "conversation": "ben", "type": "when", "evidence": ["S2:1"],
         "question": "When did Ben run his first marathon?", "answer": "1 June 2024"},
        {"id": "cho-1", "conversation": "cho", "type": "fact", "evidence": ["S2:1"],
         "question": "What instrument is Cho learning?", "answer": "the cello"},
        {"id": "cho-2", "conversation": "cho", "type": "when", "evidence": ["S1:1"],
         "question": "When did Cho's team ship the billing app?", "answer": "20 July 2024"},
    ],
}  # fmt: skip


class TinyBenchmark(Benchmark):
    name = "tiny"
    description = "Tiny (locoscore's example): 3 conversations, 6 questions"
    types = (QuestionType(1, "fact", "single fact"), QuestionType(2, "when", "when"))
    metric = Metric("gold_recall", "gold recall", gold_recall)
    judge_rules = JudgeRules(
        task="You check an assistant's answer to a question about its past chats with a user.",
        by_type={
            "fact": "the candidate names the same thing as the reference.",
            "when": "the candidate gives the same date or period as the reference, in any "
            "format; a different day, month or year is wrong.",
        },
    )
    data = DATA  # or a JSON file of the same shape: --dataset FILE


BENCHMARK = TinyBenchmark()
