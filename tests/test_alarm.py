"""ML-k-J hyperforests approximating the ALARM network (Liang & Srebro 2004, section 6.2, Table 2).

A small version of benchmarks/bench_alarm.py: 3,000 training and 1,000 test rows
instead of 10,000 and 2,000, tree-width k = 0, 1, 2. Only inequalities and the
paper's documented values are checked, never numbers read off this seed.
"""

import numpy as np
import pandas as pd
import pytest

from graphmodels.io import load_network
from graphmodels.models import HyperforestDensity

N_TRAIN, N_TEST = 3_000, 1_000
WIDTHS = (0, 1, 2)
# Entropy of the bundled ALARM copy, nats per row: sum_j sum_pa P(pa) H(X_j | pa) = 10.43796
# by variable elimination (see tests/test_bayesnet.py).
ALARM_ENTROPY_NATS = 10.438
# Liang & Srebro (2004), Table 2: ML-0-J test log-likelihood -29.54. The paper gives no unit;
# its values agree with ours in bits (see the `alarm` section of benchmarks/RESULTS.md).
PAPER_K0_BITS = -29.54


@pytest.fixture(scope="module")
def alarm():
    return load_network("alarm")


def _categorical(frame, network):
    # All of the network's states as levels: a state missing from the training rows is
    # then a zero count smoothed by the pseudo-count, not a state summed out at test time.
    return pd.DataFrame({v: pd.Categorical(frame[v], categories=network.states[v]) for v in network.variables})


@pytest.fixture(scope="module")
def fitted(alarm):
    rng = np.random.default_rng(20040601)
    train = _categorical(alarm.sample(N_TRAIN, random_state=rng), alarm)
    test = _categorical(alarm.sample(N_TEST, random_state=rng), alarm)
    models = {k: HyperforestDensity(treewidth=k, criterion="ml").fit(train) for k in WIDTHS}
    test_ll = {k: model.score_samples(test) for k, model in models.items()}
    return {"models": models, "test_ll": test_ll, "true_ll": alarm.log_likelihood(test), "test": test}


def test_sampled_rows_match_the_network_entropy(fitted):
    true_ll = fitted["true_ll"]
    assert true_ll.shape == (N_TEST,)
    assert np.all(np.isfinite(true_ll)) and np.all(true_ll <= 0)
    standard_error = true_ll.std(ddof=1) / np.sqrt(N_TEST)
    assert abs(true_ll.mean() + ALARM_ENTROPY_NATS) < 5 * standard_error


def test_test_loglik_increases_with_treewidth_and_stays_below_the_true_network(fitted):
    means = {k: float(np.mean(ll)) for k, ll in fitted["test_ll"].items()}
    true_mean = float(np.mean(fitted["true_ll"]))
    # Table 2: the test log-likelihood increases with the tree-width ...
    assert means[0] < means[1] < means[2]
    # ... and stays below that of the network the rows came from.
    assert means[2] < true_mean


@pytest.mark.parametrize("k", WIDTHS)
def test_values_are_finite_and_in_sane_bounds(fitted, alarm, k):
    ll = fitted["test_ll"][k]
    assert ll.shape == (N_TEST,)
    assert np.all(np.isfinite(ll)) and np.all(ll < 0)
    # Loose bounds that catch unit or sign errors: better than the uniform distribution (every
    # model here fits at least the marginals), not better than the true network beyond noise.
    uniform = -sum(np.log(len(alarm.states[v])) for v in alarm.variables)
    assert uniform - 1.0 < np.mean(ll) < np.mean(fitted["true_ll"]) + 0.1
    structure = fitted["models"][k].structure_
    assert structure.width <= k
    assert sorted(structure.nodes) == sorted(alarm.variables)


def test_independent_model_matches_paper_in_bits(fitted):
    # Table 2, k = 0: -29.54. 1,000 test rows give a standard error of about 0.4 bits.
    k0_bits = np.mean(fitted["test_ll"][0]) / np.log(2)
    assert abs(k0_bits - PAPER_K0_BITS) < 2.0


def test_treewidth_one_is_a_spanning_tree(fitted, alarm):
    # ML-1-J is the Chow-Liu tree: n - 1 edges when every pair has positive mutual information.
    maximal = fitted["models"][1].structure_.maximal_hyperedges
    assert all(len(h) == 2 for h in maximal)
    assert len(maximal) == len(alarm.variables) - 1
