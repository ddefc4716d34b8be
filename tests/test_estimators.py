"""Tests of graphmodels.estimators: MLE, Dirichlet, BDeu and get_estimator."""

import json

import numpy as np
import pytest

from graphmodels.estimators import (
    ESTIMATORS,
    LIANG_SREBRO_PSEUDO_COUNT,
    BDeu,
    Dirichlet,
    MaximumLikelihood,
    get_estimator,
)

# A family table: 2 parent configurations (rows) x 3 child states (last axis).
FAMILY = np.array([[1.0, 3.0, 0.0], [0.0, 0.0, 0.0]])


def test_mle_hand_values():
    cpt = MaximumLikelihood().conditional(FAMILY)
    # Row 0: n = 4 -> (1/4, 3/4, 0); row 1 has no counts -> uniform 1/3.
    np.testing.assert_allclose(cpt, [[0.25, 0.75, 0.0], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-15)
    np.testing.assert_allclose(MaximumLikelihood().joint([[1, 3], [0, 4]]), [[0.125, 0.375], [0.0, 0.5]])


def test_dirichlet_hand_values():
    # alpha = 0.5 per cell: row 0 -> (1.5, 3.5, 0.5) / 5.5; row 1 -> uniform.
    cpt = Dirichlet(0.5).conditional(FAMILY)
    np.testing.assert_allclose(cpt[0], [1.5 / 5.5, 3.5 / 5.5, 0.5 / 5.5], rtol=1e-15)
    np.testing.assert_allclose(cpt[1], [1 / 3] * 3, rtol=1e-15)
    # Laplace on a joint table [[1, 3], [0, 4]]: (2, 4, 1, 5) / 12.
    np.testing.assert_allclose(Dirichlet(1.0).joint([[1, 3], [0, 4]]), [[2 / 12, 4 / 12], [1 / 12, 5 / 12]])


def test_bdeu_hand_values():
    # ess = 3 over q * r = 2 * 3 = 6 cells: alpha = 1/2 per cell, so BDeu(3)
    # on this family is Dirichlet(0.5).
    cpt = BDeu(3.0).conditional(FAMILY)
    np.testing.assert_allclose(cpt[0], [1.5 / 5.5, 3.5 / 5.5, 0.5 / 5.5], rtol=1e-15)
    np.testing.assert_allclose(cpt, Dirichlet(0.5).conditional(FAMILY), rtol=1e-15)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (4, 2, 5), (1, 1)])
@pytest.mark.parametrize("ess", [1.0, 2.5, 10.0])
def test_bdeu_pseudo_count_is_ess_over_q_times_r(shape, ess):
    q = int(np.prod(shape[:-1]))
    r = shape[-1]
    assert BDeu(ess).pseudo_count(shape) == pytest.approx(ess / (q * r), rel=1e-15)


def test_liang_srebro_pseudo_count():
    assert LIANG_SREBRO_PSEUDO_COUNT == 0.001
    estimator = get_estimator("liang-srebro")
    assert estimator == Dirichlet(0.001)
    # 0.001 per cell: (1.001, 0.001) / 1.002.
    np.testing.assert_allclose(estimator.conditional([1, 0]), [1.001 / 1.002, 0.001 / 1.002], rtol=1e-15)


ESTIMATOR_INSTANCES = [MaximumLikelihood(), Dirichlet(0.0), Dirichlet(1.0), Dirichlet(0.001), BDeu(1.0), BDeu(7.0)]


@pytest.mark.parametrize("estimator", ESTIMATOR_INSTANCES, ids=repr)
@pytest.mark.parametrize("seed", [0, 1])
def test_rows_sum_to_one(estimator, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(3, 2, 4)).astype(float)
    counts[0, 1] = 0  # a parent configuration never seen
    cpt = estimator.conditional(counts)
    assert cpt.shape == counts.shape
    assert (cpt >= 0).all()
    np.testing.assert_allclose(cpt.sum(axis=-1), 1.0, rtol=1e-12)
    joint = estimator.joint(counts)
    assert joint.sum() == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("estimator", ESTIMATOR_INSTANCES, ids=repr)
def test_estimators_do_not_change_the_counts(estimator):
    counts = np.array([[1.0, 2.0], [0.0, 5.0]])
    before = counts.copy()
    estimator.conditional(counts)
    estimator.joint(counts)
    np.testing.assert_array_equal(counts, before)


def test_positive_pseudo_counts_give_positive_probabilities():
    counts = np.array([[5.0, 0.0], [0.0, 0.0]])
    assert (Dirichlet(0.001).conditional(counts) > 0).all()
    assert (BDeu(1.0).conditional(counts) > 0).all()
    assert MaximumLikelihood().conditional(counts)[0, 1] == 0.0


@pytest.mark.parametrize(
    "make, parameter",
    [
        (lambda: Dirichlet(-1.0), "pseudo_count"),
        (lambda: Dirichlet(float("nan")), "pseudo_count"),
        (lambda: Dirichlet(float("inf")), "pseudo_count"),
        (lambda: Dirichlet("lots"), "pseudo_count"),
        (lambda: BDeu(0.0), "equivalent_sample_size"),
        (lambda: BDeu(-2.0), "equivalent_sample_size"),
        (lambda: BDeu(float("inf")), "equivalent_sample_size"),
        (lambda: BDeu(None), "equivalent_sample_size"),
    ],
)
def test_invalid_parameters_name_the_parameter(make, parameter):
    with pytest.raises(ValueError, match=f"`{parameter}`"):
        make()


@pytest.mark.parametrize("counts", [[-1.0, 2.0], [np.nan, 1.0], 3.0])
def test_invalid_counts_are_refused(counts):
    with pytest.raises(ValueError):
        MaximumLikelihood().conditional(counts)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("mle", MaximumLikelihood()),
        ("dirichlet", Dirichlet(1.0)),
        ("laplace", Dirichlet(1.0)),
        ("bdeu", BDeu(1.0)),
        ("liang-srebro", Dirichlet(0.001)),
        ("BDeu", BDeu(1.0)),
    ],
)
def test_get_estimator_by_name(name, expected):
    assert get_estimator(name) == expected
    assert type(get_estimator(name)) is type(expected)


@pytest.mark.parametrize("estimator", ESTIMATOR_INSTANCES + [get_estimator("laplace")], ids=repr)
def test_to_dict_round_trip(estimator):
    description = json.loads(json.dumps(estimator.to_dict()))
    restored = get_estimator(description)
    assert restored == estimator
    assert hash(restored) == hash(estimator)
    np.testing.assert_array_equal(restored.conditional(FAMILY), estimator.conditional(FAMILY))


def test_get_estimator_passes_instances_through():
    estimator = BDeu(2.0)
    assert get_estimator(estimator) is estimator


def test_equality_depends_on_type_and_parameters():
    assert Dirichlet(1.0) != Dirichlet(2.0)
    assert BDeu(1.0) != Dirichlet(1.0)
    assert MaximumLikelihood() != Dirichlet(0.0)


@pytest.mark.parametrize("bad", ["laplase", {"name": "nope"}, {"pseudo_count": 1.0}])
def test_unknown_estimator_lists_valid_names(bad):
    with pytest.raises(ValueError) as info:
        get_estimator(bad)
    for name in ESTIMATORS:
        assert repr(name) in str(info.value)


def test_get_estimator_rejects_other_types():
    with pytest.raises(TypeError, match="estimator"):
        get_estimator(3)
