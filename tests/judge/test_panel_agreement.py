"""The panel's agreement statistics against values worked out by hand, and the panel
section (spread, split questions, a failed judge) on a small fixture."""

from __future__ import annotations

import math

import pytest

from locoscore.judge.panel.agreement import cohen_kappa, kendall_tau_b, krippendorff_alpha_nominal
from locoscore.judge.panel.questions import JudgedQuestion
from locoscore.judge.panel.summary import JudgeOutcome, panel_section

T, F = True, False
# three judges, six questions (None: judge C has no verdict on q5)
A = [T, T, F, T, F, F]
B = [T, F, F, T, T, F]
C = [T, T, F, F, None, F]


def test_cohen_kappa_by_hand() -> None:
    # A vs B: agree on q1 q3 q4 q6 -> p_o = 4/6; A and B each say T 3 times, F 3 times:
    # p_e = (3*3 + 3*3) / 36 = 1/2; kappa = (4/6 - 1/2) / (1 - 1/2) = 1/3
    assert cohen_kappa(A, B) == pytest.approx(1 / 3)
    # A vs C over q1-q4, q6 (C has no q5): agree on 4 of 5 -> p_o = 0.8; A: T 3, F 2;
    # C: T 2, F 3; p_e = (3*2 + 2*3) / 25 = 0.48; kappa = 0.32 / 0.52 = 8/13
    assert cohen_kappa(A, C) == pytest.approx(8 / 13)
    # both say T to everything: p_e = 1, nothing to agree on -> undefined, not 1
    assert cohen_kappa([T, T], [T, T]) is None
    assert cohen_kappa([None], [T]) is None


def test_krippendorff_alpha_nominal_by_hand() -> None:
    # coincidences, each ordered pair in a unit of m values counting 1/(m-1):
    # q1 TTT: TT 6/2 = 3; q2 TFT: TT 1, TF 1, FT 1; q3 FFF: FF 3; q4 TTF: TT 1, TF 1, FT 1;
    # q5 FT (m=2): TF 1, FT 1; q6 FFF: FF 3.
    # o_TT = 5, o_FF = 6, o_TF = o_FT = 3; n_T = 8, n_F = 9, n = 17
    # alpha = 1 - (n-1) * (o_TF + o_FT) / (n_T n_F + n_F n_T) = 1 - 16 * 6 / 144 = 1/3
    units = list(zip(A, B, C, strict=True))
    assert krippendorff_alpha_nominal(units) == pytest.approx(1 / 3)
    # two judges that disagree on everything, 40 questions (the verbose answers below):
    # o_TF = o_FT = 40, n_T = n_F = 40, n = 80: 1 - 79 * 80 / (2 * 40 * 40) = -0.975
    assert krippendorff_alpha_nominal([(T, F)] * 40) == pytest.approx(-0.975)
    assert krippendorff_alpha_nominal([(T, T)] * 3) is None  # one label only
    assert krippendorff_alpha_nominal([(T, None)]) is None  # nothing pairable


def test_kendall_tau_b_by_hand() -> None:
    # orders a>b>c>d vs c>b>a>d: pairs ab ac bc discordant, ad bd cd concordant -> 0
    assert kendall_tau_b({"a": 3, "b": 2, "c": 1, "d": 0}, {"a": 1, "b": 2, "c": 3, "d": 0}) == 0
    # a=b tied in x: C = 2 (ac, bc), D = 0, P = 3, T_x = 1, T_y = 0 -> 2 / sqrt(2 * 3)
    tau = kendall_tau_b({"a": 1, "b": 1, "c": 2}, {"a": 1, "b": 2, "c": 3})
    assert tau == pytest.approx(2 / math.sqrt(6))
    assert kendall_tau_b({"a": 1}, {"a": 2}) is None


def _outcome(name: str, verdicts: list[bool | None], kinds: str) -> JudgeOutcome:
    questions = [
        JudgedQuestion(f"q{i + 1}", kind, None if v is None else 100.0 * v, f"question {i + 1}")
        for i, (v, kind) in enumerate(zip(verdicts, kinds, strict=True))
    ]
    return JudgeOutcome(name, f"judges/{name}", "strict", None, "sig", questions)


def test_panel_section_spread_split_and_a_failed_judge() -> None:
    kinds = "xxxyyy"  # types: q1-q3 x, q4-q6 y
    failed = JudgeOutcome("d", "judges/d", "lenient", None, error="every judge call failed")
    section = panel_section(
        [_outcome("a", A, kinds), _outcome("b", B, kinds), _outcome("c", C, kinds), failed]
    )
    judges = section["judges"]
    # J: A 3/6 = 50, B 3/6 = 50, C 2/5 = 40 (q5 without a verdict leaves C's denominator)
    assert [judges[n]["overall"]["mean"] for n in "abc"] == [50.0, 50.0, 40.0]
    assert judges["c"]["overall"]["count"] == 5
    assert section["spread"]["overall"] == 10.0
    # type x: A 2/3, B 1/3, C 2/3 -> spread 33.33; type y: A 1/3, B 2/3, C 0/2 -> 66.67
    spread = section["spread"]["by_type"]
    assert spread == {"x": pytest.approx(100 / 3, abs=1e-3), "y": pytest.approx(200 / 3, abs=1e-3)}
    assert section["agreement"]["krippendorff_alpha"]["overall"] == pytest.approx(1 / 3, abs=1e-4)
    ab = section["agreement"]["cohen_kappa"][0]
    assert (ab["a"], ab["b"], ab["overall"]) == ("a", "b", pytest.approx(1 / 3, abs=1e-4))
    # type x, A vs B: (T,T) (T,F) (F,F): p_o 2/3; A T2 F1, B T1 F2: p_e = (2+2)/9 = 4/9;
    # kappa = (2/3 - 4/9) / (5/9) = 2/5
    assert ab["by_type"]["x"] == pytest.approx(0.4)
    # split: q2 (A T, B F), q4 (C F), q5 (A F, B T); q1, q3, q6 unanimous
    assert [q["question_id"] for q in section["split"]] == ["q2", "q4", "q5"]
    assert section["split"][2]["right"] == {"a": False, "b": True, "c": None}
    # the failed judge is reported, and no figure rests on it
    assert section["failed"] == ["d"]
    assert judges["d"] == {
        "folder": "judges/d",
        "template": "lenient",
        "accepts": None,
        "signature": None,
        "model": None,
        "same_model_as_answer": None,
        "status": "failed",
        "error": "every judge call failed",
    }
    assert len(section["agreement"]["cohen_kappa"]) == 3  # a-b, a-c, b-c: not d
