"""Statistics, each checked against values worked out by hand in the test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from locoscore import stats

# ---- spreads -----------------------------------------------------------------------------


def test_mean_and_sample_std_of_ten_runs() -> None:
    # deviations from 70.6 squared sum to 20.4; 20.4 / 9 = 2.2667; sqrt = 1.5055
    mean, std = stats.mean_and_std([70, 72, 68, 71, 73, 69, 70, 72, 71, 70])
    assert mean == pytest.approx(70.6)
    assert std == pytest.approx(math.sqrt(20.4 / 9))


def test_failed_runs_are_dropped_not_counted_as_zero() -> None:
    assert stats.mean_and_std([80, None, 60]) == (70.0, pytest.approx(math.sqrt(200)))


def test_one_run_has_no_std() -> None:
    assert stats.mean_and_std([55, None]) == (55.0, None)
    assert stats.mean_and_std([None]) == (None, None)


def test_pooled_within_std_weights_variances_by_degrees_of_freedom() -> None:
    # var([60, 80]) = 200 on 1 df; var([50, 50, 80]) = 300 on 2 df -> (200 + 600) / 3
    pooled = stats.pooled_within_std([[60, 80], [50, 50, 80], [90]])
    assert pooled == pytest.approx(math.sqrt(800 / 3))


def test_run_level_means_per_repeat_index_and_their_std() -> None:
    # run 0: (100+100+0)/3, run 1: (0+100+0)/3, run 2: (100+100)/2 (one failure dropped)
    level = stats.run_level([[100, 0, 100], [100, 100, None], [0, 0, 100]])
    assert level.per_run_means == pytest.approx([200 / 3, 100 / 3, 100])
    assert level.mean == pytest.approx(200 / 3)
    assert level.std == pytest.approx(100 / 3)


# ---- intervals ---------------------------------------------------------------------------


def test_normal_interval_is_mean_plus_minus_1_96_standard_errors() -> None:
    # values 1..5: mean 3, sd sqrt(2.5), se sqrt(2.5)/sqrt(5) = sqrt(0.5)
    ci = stats.normal_mean_ci([1, 2, 3, 4, 5])
    assert ci.se == pytest.approx(math.sqrt(0.5))
    assert ci.low == pytest.approx(3 - 1.959964 * math.sqrt(0.5), abs=1e-6)
    assert ci.high == pytest.approx(3 + 1.959964 * math.sqrt(0.5), abs=1e-6)


def test_clustered_standard_error_by_hand() -> None:
    # mean 3; cluster residual sums -3 and +3; SE^2 = 2/1 * 18 / 16 = 2.25; t(0.975, 1 df)
    ci = stats.clustered_mean_ci([1, 2, 3, 6], ["a", "a", "b", "b"])
    assert ci.se == pytest.approx(1.5)
    assert ci.high - ci.estimate == pytest.approx(12.7062 * 1.5, rel=1e-4)


def test_clustered_with_one_question_per_cluster_equals_the_plain_standard_error() -> None:
    values = [0.2, 0.9, 0.4, 0.7, 0.1, 0.5]
    clustered = stats.clustered_mean_ci(values, list(range(6)))
    assert clustered.se == pytest.approx(stats.normal_mean_ci(values).se)


@pytest.mark.parametrize(
    ("df", "expected"), [(1, 12.7062), (2, 4.3027), (5, 2.5706), (9, 2.2622), (30, 2.0423)]
)
def test_t_quantile_matches_printed_tables(df: int, expected: float) -> None:
    assert stats.t_quantile(0.975, df) == pytest.approx(expected, abs=1e-3)


def test_bootstrap_of_two_values_has_the_hand_computed_percentiles() -> None:
    # resampled means of [0, 1] are 0, 0.5, 1 with probability 1/4, 1/2, 1/4, so the 2.5th
    # and 97.5th percentiles are 0 and 1.
    ci = stats.bootstrap_mean_ci([0.0, 1.0], resamples=4000, seed=1)
    assert (ci.low, ci.estimate, ci.high) == (0.0, 0.5, 1.0)


def test_bootstrap_is_reproducible_with_its_seed_and_varies_without() -> None:
    values = list(np.random.default_rng(5).random(50))
    assert stats.bootstrap_mean_ci(values, seed=3) == stats.bootstrap_mean_ci(values, seed=3)
    assert stats.bootstrap_mean_ci(values, seed=3) != stats.bootstrap_mean_ci(values, seed=4)


def test_bootstrap_of_constant_scores_is_a_point() -> None:
    ci = stats.bootstrap_mean_ci([0.4] * 30)
    assert ci.low == pytest.approx(0.4) and ci.high == pytest.approx(0.4)


def test_question_level_intervals_cover_the_true_mean_95_percent_of_the_time() -> None:
    # 600 simulated LoCoMo-like runs: 300 questions each, per-question J = mean of 5 binary
    # runs with question difficulty drawn from Beta(2, 1). True mean = 2/3 * 100.
    rng = np.random.default_rng(20261129)
    datasets, questions, runs = 600, 300, 5
    difficulty = rng.beta(2.0, 1.0, size=(datasets, questions))
    verdicts = rng.random((datasets, questions, runs)) < difficulty[..., None]
    per_question = verdicts.mean(axis=2) * 100
    true_mean = 200 / 3
    boot = [stats.bootstrap_mean_ci(v, resamples=1000, seed=i) for i, v in enumerate(per_question)]
    boot_cover = np.mean([ci.contains(true_mean) for ci in boot])
    normal_cover = np.mean([stats.normal_mean_ci(v).contains(true_mean) for v in per_question])
    assert 0.93 <= boot_cover <= 0.97
    assert 0.93 <= normal_cover <= 0.97


def test_clustered_interval_covers_the_true_mean_when_conversations_shift_difficulty() -> None:
    # 600 simulated datasets of 10 conversations (LoCoMo's non-adversarial sizes halved);
    # each conversation shifts every question's chance of a CORRECT run by u ~ U(-0.15, 0.15),
    # question chance = 0.15 + 0.7 * Beta(2, 1) + u, 5 binary runs. True mean = 61.67.
    # The clustered interval keeps its 95 %; one that treats questions as independent does not.
    rng = np.random.default_rng(20261129)
    sizes = np.array([199, 105, 193, 260, 242, 158, 190, 191, 156, 204]) // 2
    conversation = np.repeat(np.arange(10), sizes)
    true_mean = (0.15 + 0.7 * 2 / 3) * 100
    clustered, independent = [], []
    for _ in range(600):
        shift = rng.uniform(-0.15, 0.15, size=10)
        chance = 0.15 + 0.7 * rng.beta(2.0, 1.0, size=conversation.size) + shift[conversation]
        per_question = (rng.random((conversation.size, 5)) < chance[:, None]).mean(axis=1) * 100
        clustered.append(stats.clustered_mean_ci(per_question, conversation).contains(true_mean))
        independent.append(stats.normal_mean_ci(per_question).contains(true_mean))
    assert 0.93 <= np.mean(clustered) <= 0.97
    assert np.mean(independent) < 0.7


# ---- agreement ---------------------------------------------------------------------------


def test_unanimity_counts_questions_whose_runs_all_agree() -> None:
    assert stats.unanimity([[100, 100, 100], [100, 0, 100], [0, None, 0], [100]]) == 2 / 3


def test_fleiss_kappa_reproduces_the_textbook_example() -> None:
    # Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories; P_bar 0.378,
    # P_e 0.213, kappa 0.210.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [[cat for cat, n in enumerate(row) for _ in range(n)] for row in table]
    assert stats.fleiss_kappa(ratings) == pytest.approx(0.210, abs=5e-4)


def test_fleiss_kappa_binary_by_hand() -> None:
    # items [1,1,1], [1,1,0], [0,0,0]: P_i = 1, 1/3, 1 -> P_bar 7/9; p(1) = 5/9, p(0) = 4/9
    # P_e = 41/81; kappa = (63/81 - 41/81) / (40/81) = 22/40
    kappa = stats.fleiss_kappa([[100, 100, 100], [100, 100, 0], [0, 0, 0]])
    assert kappa == pytest.approx(22 / 40)


def test_fleiss_kappa_is_undefined_when_every_verdict_is_the_same() -> None:
    assert stats.fleiss_kappa([[100, 100], [100, 100]]) is None


def test_krippendorff_alpha_interval_by_hand() -> None:
    # values {1,2} and {3,3}: D_o = 2/4; all-pairs squared differences (ordered) = 22,
    # D_e = 22/12; alpha = 1 - 0.5 / (22/12) = 8/11
    assert stats.krippendorff_alpha_interval([[1, 2], [3, 3]]) == pytest.approx(8 / 11)


def test_krippendorff_alpha_interval_reproduces_krippendorffs_example_with_missing_data() -> None:
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders, 12 units,
    # missing values; interval alpha = 0.849.
    units = [
        [1, 1, None, 1],
        [2, 2, 3, 2],
        [3, 3, 3, 3],
        [3, 3, 3, 3],
        [2, 2, 2, 2],
        [1, 2, 3, 4],
        [4, 4, 4, 4],
        [1, 1, 2, 1],
        [2, 2, 2, 2],
        [None, 5, 5, 5],
        [None, None, 1, 1],
        [None, 3, None, None],
    ]
    assert stats.krippendorff_alpha_interval(units) == pytest.approx(0.849, abs=5e-4)


# ---- latency -----------------------------------------------------------------------------


def test_latency_percentiles_interpolate_linearly() -> None:
    # 1..100: position (n - 1) p; p95 -> 94.05 -> 95.05, p99 -> 98.01 -> 99.01
    lat = stats.LatencyStats.from_values([float(x) for x in range(100, 0, -1)] + [None])
    assert lat is not None
    assert (lat.count, lat.mean, lat.p50, lat.min, lat.max) == (100, 50.5, 50.5, 1.0, 100.0)
    assert lat.p95 == pytest.approx(95.05)
    assert lat.p99 == pytest.approx(99.01)


def test_latency_of_nothing_is_none() -> None:
    assert stats.LatencyStats.from_values([None, None]) is None


# ---- paired tests ------------------------------------------------------------------------


def test_wilcoxon_signed_rank_with_ties_and_zeros_by_hand() -> None:
    # d = [0, 1, -1, 2, 2, 3]: drop the zero -> |d| ranks 1.5, 1.5, 3.5, 3.5, 5
    # W+ = 1.5 + 3.5 + 3.5 + 5 = 13.5, W- = 1.5; n = 5, mean 7.5,
    # var = 5*6*11/24 - (6 + 6)/48 = 13.75 - 0.25 = 13.5; z = 6 / sqrt(13.5)
    result = stats.wilcoxon_signed_rank([0, 1, -1, 2, 2, 3])
    assert (result.n_nonzero, result.w_plus, result.w_minus) == (5, 13.5, 1.5)
    z = 6 / math.sqrt(13.5)
    assert result.z == pytest.approx(z)
    assert result.p_value == pytest.approx(math.erfc(z / math.sqrt(2)))


def test_wilcoxon_of_identical_systems_is_not_significant() -> None:
    result = stats.wilcoxon_signed_rank([0.0] * 20)
    assert (result.n_nonzero, result.p_value) == (0, 1.0)


def test_mcnemar_exact_by_hand() -> None:
    # discordant: A-only 1, B-only 6; p = 2 * (C(7,0) + C(7,1)) / 2^7 = 16 / 128
    a = [True] * 5 + [True] + [False] * 6 + [False] * 3
    b = [True] * 5 + [False] + [True] * 6 + [False] * 3
    result = stats.mcnemar_exact(a, b)
    assert (result.only_a, result.only_b) == (1, 6)
    assert result.p_value == pytest.approx(16 / 128)


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    assert stats.mcnemar_exact([True, False], [True, False]).p_value == 1.0


def test_wilcoxon_p_value_keeps_precision_far_in_the_tail() -> None:
    result = stats.wilcoxon_signed_rank([float(i) for i in range(1, 201)])
    assert 0 < result.p_value < 1e-30
