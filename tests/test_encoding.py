"""Tests of graphmodels.data.encoding: TableEncoder and LabelEncoder."""

import numpy as np
import pandas as pd
import pytest

from graphmodels.data.encoding import MISSING_LABEL, UNKNOWN, LabelEncoder, TableEncoder
from graphmodels.models.base import clone_model


def _decode(encoder, codes):
    """Labels of a code table (UNKNOWN stays None)."""
    return [[None if c == UNKNOWN else encoder.levels_[j][c] for j, c in enumerate(row)] for row in codes.tolist()]


# ---------------------------------------------------------------- column kinds
def test_text_states_in_order_of_first_appearance():
    # Text has no natural order: the data's own (not alphabetical: high, low, med, vhigh).
    frame = pd.DataFrame({"s": ["low", "med", "high", "low", "vhigh"]})
    enc = TableEncoder().fit(frame)
    assert enc.levels_ == [["low", "med", "high", "vhigh"]]
    assert enc.cardinalities_.tolist() == [4]
    assert enc.transform(frame)[:, 0].tolist() == [0, 1, 2, 0, 3]


@pytest.mark.parametrize(
    "values, levels",
    [
        ([True, False, True], [False, True]),  # booleans: False, True
        (pd.array([True, None, False], dtype="boolean"), [False, True, MISSING_LABEL]),
        ([3, "b", 1, "a"], [3, "b", 1, "a"]),  # a mix with no order: first appearance
        # A discretizer's labels ascend by their edges (alphabetically "(10, inf)" would come before "(5, 10]").
        (["(10, inf)", "(-inf, 5]", "(5, 10]"], ["(-inf, 5]", "(5, 10]", "(10, inf)"]),
        ([pd.Interval(2, 3), pd.Interval(0, 1)], [pd.Interval(0, 1), pd.Interval(2, 3)]),
        (pd.to_timedelta([5, 1, 3], unit="s"), list(pd.to_timedelta([1, 3, 5], unit="s"))),
        (pd.to_datetime(["2024-03-01", "2023-12-31"]), list(pd.to_datetime(["2023-12-31", "2024-03-01"]))),
        # Durations ascend by length, not by their text ("10 days" is written before "2 days").
        (pd.to_timedelta([10, 2, 1], unit="D"), list(pd.to_timedelta([1, 2, 10], unit="D"))),
    ],
)
def test_natural_orders(values, levels):
    enc = TableEncoder().fit(pd.DataFrame({"v": pd.Series(values, dtype=getattr(values, "dtype", object))}))
    assert enc.levels_ == [levels]


def test_state_order_is_a_relabelling_only():
    # The same table with its text states listed in another order (categories reversed): the
    # same probabilities, the tables permuted.
    import graphmodels as gm

    rng = np.random.default_rng(0)
    X = pd.DataFrame({c: rng.choice(["lo", "mid", "hi", "top"], 80) for c in "abcd"})
    y = np.where((X["a"] == X["b"]) ^ (rng.random(80) < 0.2), "yes", "no")
    reordered = X.apply(lambda column: pd.Categorical(column, categories=["lo", "mid", "hi", "top"]))
    for model in (gm.NaiveBayes(), gm.TAN(), gm.ChowLiu(), gm.KDB(k=2)):
        first = clone_model(model).fit(X, y)
        second = clone_model(model).fit(reordered, y)
        assert first.encoder_.levels_[0] == ["top", "hi", "mid", "lo"]  # first appearance
        np.testing.assert_allclose(first.predict_proba(X), second.predict_proba(reordered), rtol=1e-9, atol=1e-12)


def test_categorical_keeps_unused_categories_in_category_order():
    cat = pd.Categorical(["lo", "hi", "lo"], categories=["lo", "mid", "hi"], ordered=True)
    frame = pd.DataFrame({"c": cat})
    enc = TableEncoder().fit(frame)
    assert enc.levels_ == [["lo", "mid", "hi"]]
    assert enc.cardinalities_.tolist() == [3]
    assert enc.transform(frame)[:, 0].tolist() == [0, 2, 0]
    # The unused category is a level a new row can take.
    new = pd.DataFrame({"c": pd.Categorical(["mid"], categories=["lo", "mid", "hi"])})
    assert enc.transform(new).tolist() == [[1]]


def test_categorical_with_missing_cell():
    cat = pd.Categorical(["x", None, "y"], categories=["x", "y", "z"])
    enc = TableEncoder().fit(pd.DataFrame({"c": cat}))
    assert enc.levels_ == [["x", "y", "z", MISSING_LABEL]]
    assert enc.transform(pd.DataFrame({"c": cat}))[:, 0].tolist() == [0, 3, 1]


def test_integers_sort_numerically():
    frame = pd.DataFrame({"i": [10, 2, 1, 2]})
    enc = TableEncoder().fit(frame)
    assert enc.levels_ == [[1, 2, 10]]
    assert enc.transform(frame)[:, 0].tolist() == [2, 1, 0, 1]


_T = pd.Timestamp("2024-01-01")
_NS = pd.Timedelta(1, "ns")


@pytest.mark.parametrize(
    "trained, new, expected",
    [
        # 64-bit identifiers beyond float64's 2**53: 2**53 + 1 is not 2**53 (float64 rounds one to the other).
        (
            np.array([2**53, 2**53 + 4, 0, 2**21], dtype=np.int64),
            np.array([2**53 + 1, 2**53, 2**53 + 4, 2**53 + 3, -(2**63)], dtype=np.int64),
            [None, 2**53, 2**53 + 4, None, None],
        ),
        (
            np.array([2**64 - 1, 2**64 - 1 - 2**20, 0], dtype=np.uint64),
            np.array([2**64 - 2, 2**64 - 1, 1], dtype=np.uint64),
            [None, 2**64 - 1, None],
        ),
        # pandas' nullable integers, with a missing cell: wide and narrow ranges.
        (
            pd.array([2**53, None, 0, 2**21], dtype="Int64"),
            pd.array([2**53 + 1, 2**53, None], dtype="Int64"),
            [None, 2**53, MISSING_LABEL],
        ),
        (pd.array([3, None, 0, 1], dtype="Int64"), pd.array([3, 2, None], dtype="Int64"), [3, None, MISSING_LABEL]),
        # Integers against float states: only the float that equals the integer.
        (np.array([1.0, 2.5, 2.0**53]), np.array([2**53, 2**53 + 1, 2], dtype=np.int64), [2.0**53, None, None]),
        (np.array([2**53 + 1, 3], dtype=np.int64), np.array([2.0**53, 3.0, 3.5]), [None, 3, None]),
        # Timestamps and durations 1 ns apart.
        (pd.Series([_T, _T + 2 * _NS, _T + pd.Timedelta(1, "D")]), pd.Series([_T + _NS, _T]), [None, _T]),
        (pd.Series([_NS * 0, 2 * _NS, _NS * 10**15]), pd.Series([_NS, 2 * _NS]), [None, 2 * _NS]),
    ],
)
def test_numbers_and_timestamps_are_compared_exactly(trained, new, expected):
    enc = TableEncoder().fit(pd.DataFrame({"id": trained}))
    assert enc.cardinalities_[0] == pd.Series(trained).nunique(dropna=False)
    assert _decode(enc, enc.transform(pd.DataFrame({"id": new}))) == [[value] for value in expected]
    # Fit encodes exactly too: each trained value decodes to itself.
    decoded = [row[0] for row in _decode(enc, enc.transform(pd.DataFrame({"id": trained})))]
    assert decoded == [MISSING_LABEL if pd.isna(v) else v for v in pd.Series(trained)]


def test_an_unseen_identifier_that_rounds_to_a_trained_one_is_reported():
    import graphmodels as gm

    # Trained values 2**53 apart: float64 would round 2**53 + 1 and 2**53 + 3 to trained states.
    ids = np.array([0, 2**53, 2**53 + 2, 2**53 + 4] * 5, dtype=np.int64)
    model = gm.NaiveBayes(discretizer=None).fit(pd.DataFrame({"id": ids}), ids % 4 == 0)
    with pytest.warns(UserWarning, match="3 of 3 values of column 'id' were never seen in fit"):
        model.predict_proba(pd.DataFrame({"id": [2**53 + 1, 2**53 + 3, 2**53 + 5]}))


def test_floats_with_missing_cells():
    frame = pd.DataFrame({"f": [2.5, np.nan, -1.0, 2.5]})
    enc = TableEncoder().fit(frame)
    assert enc.levels_ == [[-1.0, 2.5, MISSING_LABEL]]
    assert enc.transform(frame)[:, 0].tolist() == [1, 2, 0, 1]


def test_integer_column_matches_floats_at_transform():
    # A test frame with a missing cell turns an int column into floats.
    enc = TableEncoder().fit(pd.DataFrame({"i": [1, 2, 3]}))
    codes = enc.transform(pd.DataFrame({"i": [3.0, np.nan, 1.0]}))
    assert codes[:, 0].tolist() == [2, UNKNOWN, 0]


@pytest.mark.parametrize("missing_value", [None, np.nan, pd.NA])
def test_missing_value_becomes_explicit_state(missing_value):
    frame = pd.DataFrame({"a": pd.Series(["x", missing_value, "y"], dtype=object), "b": [1, 2, 3]})
    enc = TableEncoder(missing="value").fit(frame)
    assert enc.levels_[0] == ["x", "y", MISSING_LABEL]
    assert enc.levels_[1] == [1, 2, 3]  # no missing cell, no missing state
    assert enc.cardinalities_.tolist() == [3, 3]
    assert enc.transform(frame)[:, 0].tolist() == [0, 2, 1]


def test_missing_error_names_the_column_at_fit():
    frame = pd.DataFrame({"fine": [1, 2], "holey col": ["a", None]})
    with pytest.raises(ValueError, match="holey col"):
        TableEncoder(missing="error").fit(frame)


def test_missing_error_names_the_column_at_transform():
    enc = TableEncoder(missing="error").fit(pd.DataFrame({"q": ["a", "b"]}))
    with pytest.raises(ValueError, match="'q'"):
        enc.transform(pd.DataFrame({"q": ["a", None]}))


def test_unknown_missing_policy_is_refused():
    with pytest.raises(ValueError, match="missing"):
        TableEncoder(missing="drop").fit(pd.DataFrame({"a": [1]}))


def test_unseen_states_are_unknown():
    enc = TableEncoder().fit(pd.DataFrame({"s": ["a", "b"], "i": [1, 2], "f": [0.5, 1.5]}))
    new = pd.DataFrame({"s": ["c", "a", None], "i": [3, 2, 1], "f": [0.5, 9.0, np.nan]})
    codes = enc.transform(new)
    # An unseen value, and a missing cell in a column that had none in training.
    assert codes.tolist() == [[UNKNOWN, UNKNOWN, 0], [0, 1, UNKNOWN], [UNKNOWN, 0, UNKNOWN]]
    assert codes.dtype.kind == "i"  # the smallest signed type that fits


def test_unseen_category_of_a_categorical_is_unknown():
    enc = TableEncoder().fit(pd.DataFrame({"c": pd.Categorical(["a", "b"])}))
    new = pd.DataFrame({"c": pd.Categorical(["b", "z"])})
    assert enc.transform(new)[:, 0].tolist() == [1, UNKNOWN]


@pytest.mark.parametrize("seed", [0, 1])
def test_random_mixed_frame_decodes_back(seed):
    rng = np.random.default_rng(seed)
    n = 50
    frame = pd.DataFrame(
        {
            "s": rng.choice(["u", "v", "w"], n).astype(object),
            "i": rng.integers(-3, 4, n),
            "f": rng.choice([0.25, 1.5, np.nan], n),
            "c": pd.Categorical(rng.choice(["p", "q"], n), categories=["q", "p", "r"]),
        }
    )
    frame.loc[rng.random(n) < 0.2, "s"] = None
    enc = TableEncoder().fit(frame)
    codes = enc.transform(frame)
    assert (codes >= 0).all() and (codes < enc.cardinalities_).all()
    expected = [
        [MISSING_LABEL if pd.isna(v) else v for v in row] for row in frame.astype(object).itertuples(index=False)
    ]
    assert _decode(enc, codes) == expected


# ---------------------------------------------------------------- column names
NAMES = ["#", "a b", "é", 1]


def test_odd_column_names_round_trip():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({name: rng.choice(["x", "y", "z"], 20) for name in NAMES})
    enc = TableEncoder().fit(frame)
    assert enc.columns_ == NAMES
    restored = TableEncoder.from_dict(enc.to_dict())
    assert restored.columns_ == NAMES
    assert restored.levels_ == enc.levels_
    np.testing.assert_array_equal(restored.transform(frame), enc.transform(frame))
    # Names are matched by name after the round trip too.
    np.testing.assert_array_equal(restored.transform(frame[NAMES[::-1]]), enc.transform(frame))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_permuted_columns_are_matched_by_name(seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {"a": rng.choice(["p", "q"], 30), "b": rng.integers(0, 5, 30), "c": rng.normal(size=30).round(0)}
    )
    enc = TableEncoder().fit(frame)
    permuted = frame[list(rng.permutation(frame.columns))]
    np.testing.assert_array_equal(enc.transform(permuted), enc.transform(frame))


def test_permuted_integer_named_columns_are_matched_by_name():
    frame = pd.DataFrame({0: ["a", "b"], 1: [5, 6]})
    enc = TableEncoder().fit(frame)
    np.testing.assert_array_equal(enc.transform(frame[[1, 0]]), [[0, 0], [1, 1]])


def test_missing_and_extra_columns_are_named():
    enc = TableEncoder().fit(pd.DataFrame({"a": [1], "b": [2], "c": [3]}))
    with pytest.raises(ValueError, match=r"missing columns \['b'\]"):
        enc.transform(pd.DataFrame({"a": [1], "c": [3]}))
    with pytest.raises(ValueError, match=r"unexpected columns \['zz'\]"):
        enc.transform(pd.DataFrame({"a": [1], "b": [2], "c": [3], "zz": [4]}))
    with pytest.raises(ValueError, match=r"missing columns \['c'\].*unexpected columns \['d'\]"):
        enc.transform(pd.DataFrame({"a": [1], "b": [2], "d": [3]}))


def test_array_with_wrong_width_is_refused():
    enc = TableEncoder().fit(np.array([[0, 1], [1, 0]]))
    with pytest.raises(ValueError, match=r"has 3 (columns|features)"):
        enc.transform(np.zeros((2, 3), dtype=int))


def test_duplicate_column_names_are_refused():
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(ValueError, match="duplicate"):
        TableEncoder().fit(frame)


# ---------------------------------------------------------------- labels
@pytest.mark.parametrize(
    "y",
    [
        ["2", "10", "1", "2"],
        np.array(["2", "10", "1", "2"]),
        pd.Series(["2", "10", "1", "2"]),
        pd.Series(["2", "10", "1", "2"], dtype="category"),
    ],
)
def test_integer_looking_string_labels_stay_strings(y):
    enc = LabelEncoder().fit(y)
    assert enc.classes_.tolist() == ["1", "10", "2"]
    assert all(isinstance(c, str) for c in enc.classes_)
    assert enc.transform(y).tolist() == [2, 1, 0, 2]


def test_integer_labels_sort_numerically():
    enc = LabelEncoder().fit([10, 2, 1])
    assert enc.classes_.tolist() == [1, 2, 10]
    assert enc.transform([2, 10]).tolist() == [1, 2]


@pytest.mark.parametrize(
    "y",
    [["a", None, "b"], [1.0, np.nan, 2.0], pd.Series(["a", np.nan]), pd.Series([1, None], dtype="Int64")],
)
def test_missing_labels_are_refused(y):
    with pytest.raises(ValueError, match="missing labels"):
        LabelEncoder().fit(y)


def test_unknown_label_at_transform_is_named():
    enc = LabelEncoder().fit(["a", "b"])
    with pytest.raises(ValueError, match="'z'"):
        enc.transform(["a", "z"])


def test_a_refitted_or_loaded_encoder_looks_states_up_in_its_own_levels():
    # transform keeps each column's states as a pandas Index between calls: a refit (or levels
    # read from a file) gives new levels, looked up afresh.
    enc = TableEncoder().fit(pd.DataFrame({"c": ["a", "b", "c"]}))
    np.testing.assert_array_equal(enc.transform(pd.DataFrame({"c": ["c", "b", "z"]}))[:, 0], [2, 1, UNKNOWN])
    enc.fit(pd.DataFrame({"c": ["z", "c"]}))  # states in the data's order
    np.testing.assert_array_equal(enc.transform(pd.DataFrame({"c": ["c", "b", "z"]}))[:, 0], [1, UNKNOWN, 0])
    loaded = TableEncoder.from_dict({**enc.to_dict(), "levels": [["b", "z"]]})
    np.testing.assert_array_equal(loaded.transform(pd.DataFrame({"c": ["c", "b", "z"]}))[:, 0], [UNKNOWN, 0, 1])
    # Numbers: each column's sorted keys are kept per dtype, for the levels they were made from.
    numbers = TableEncoder().fit(pd.DataFrame({"n": [1.5, 2.5, 7.0]}))
    np.testing.assert_array_equal(numbers.transform(pd.DataFrame({"n": [7.0, 1.5, 3.0]}))[:, 0], [2, 0, UNKNOWN])
    np.testing.assert_array_equal(numbers.transform(pd.DataFrame({"n": [7, 1, 3]}))[:, 0], [2, UNKNOWN, UNKNOWN])
    numbers.fit(pd.DataFrame({"n": [3.0, 7.0]}))
    np.testing.assert_array_equal(numbers.transform(pd.DataFrame({"n": [7.0, 1.5, 3.0]}))[:, 0], [1, UNKNOWN, 0])
    np.testing.assert_array_equal(numbers.transform(pd.DataFrame({"n": [7, 1, 3]}))[:, 0], [1, UNKNOWN, 0])
