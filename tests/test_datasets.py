"""Tests for graphmodels.data.datasets and the bundled data files."""

from importlib import resources

import numpy as np
import pandas as pd
import pytest

from graphmodels.data.datasets import (
    describe,
    info,
    list_datasets,
    load,
    train_test_rows,
)

# name: (rows, attributes, classes, missing cells), from the project's data MANIFEST.tsv
EXPECTED = {
    "adult": (48842, 14, 2, 6465),
    "breast-cancer-wisconsin": (699, 9, 2, 16),
    "car": (1728, 6, 4, 0),
    "crx": (690, 15, 2, 67),
    "glass": (214, 9, 6, 0),
    "hepatitis": (155, 19, 2, 167),
    "iris": (150, 4, 3, 0),
    "kr-vs-kp": (3196, 36, 2, 0),
    "lenses": (24, 4, 3, 0),
    "lymphography": (148, 18, 4, 0),
    "monk1": (556, 6, 2, 0),
    "monk2": (601, 6, 2, 0),
    "monk3": (554, 6, 2, 0),
    "pima": (768, 8, 2, 0),
    "tic-tac-toe": (958, 9, 2, 0),
    "titanic": (2201, 3, 2, 0),
    "voting": (435, 16, 2, 392),
    "wine": (178, 13, 3, 0),
    "zoo": (101, 16, 7, 0),
}


def _bundled():
    return resources.files("graphmodels.data") / "bundled"


def test_list_datasets():
    names = list_datasets()
    assert names == sorted(EXPECTED)
    assert names == sorted(names)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_load_matches_manifest(name):
    rows, attributes, classes, missing = EXPECTED[name]
    df = load(name)
    assert isinstance(df, pd.DataFrame)
    assert df.shape == (rows, attributes + 1)
    assert df.columns[-1] == "class"
    assert df["class"].nunique() == classes
    assert df["class"].notna().all()
    assert int(df.isna().sum().sum()) == missing
    assert not df.columns.duplicated().any()
    meta = info(name)
    assert (meta["rows"], meta["attributes"], meta["classes"], meta["missing_cells"]) == (
        rows,
        attributes,
        classes,
        missing,
    )


@pytest.mark.parametrize("name", ["iris", "voting", "wine"])
def test_return_X_y(name):
    df = load(name)
    X, y = load(name, return_X_y=True)
    pd.testing.assert_frame_equal(X, df.iloc[:, :-1])
    pd.testing.assert_series_equal(y, df["class"])
    assert "class" not in X.columns


def test_load_returns_fresh_copy():
    a = load("lenses")
    a.iloc[0, 0] = "changed"
    assert load("lenses").iloc[0, 0] != "changed"


def test_column_types():
    # strings stay strings, numbers are numbers; integer-looking class labels stay integers
    iris = load("iris")
    assert all(pd.api.types.is_float_dtype(iris[c]) for c in iris.columns[:-1])
    assert pd.api.types.is_string_dtype(iris["class"])
    assert set(load("wine")["class"]) == {1, 2, 3}
    assert set(load("voting").stack().dropna().unique()) <= {"y", "n", "democrat", "republican"}


@pytest.mark.parametrize(
    "alias, name",
    [
        ("vote", "voting"),
        ("Voting", "voting"),
        ("breast-w", "breast-cancer-wisconsin"),
        ("chess", "kr-vs-kp"),
        ("kr_vs_kp", "kr-vs-kp"),
        ("diabetes", "pima"),
        ("tic_tac_toe", "tic-tac-toe"),
        ("monks-2", "monk2"),
        ("census-income", "adult"),
    ],
)
def test_aliases(alias, name):
    pd.testing.assert_frame_equal(load(alias), load(name))
    assert info(alias)["name"] == name


def test_unknown_name():
    with pytest.raises(ValueError, match="unknown data set 'irsi'") as err:
        load("irsi")
    assert "Did you mean 'iris'?" in str(err.value)
    assert "'tic-tac-toe'" in str(err.value)  # valid names are listed
    with pytest.raises(TypeError, match="`name` must be a string"):
        load(3)


@pytest.mark.parametrize("name, n_train", [("monk1", 124), ("monk2", 169), ("monk3", 122)])
def test_monk_train_test_rows(name, n_train):
    assert train_test_rows(name) == n_train
    df = load(name)
    test = df.iloc[n_train:]
    # the UCI test set is the full instance space 3*3*2*3*4*2 = 432
    assert len(test) == 432
    assert len(test.drop(columns="class").drop_duplicates()) == 432


def test_adult_train_test_rows_and_labels():
    # the UCI adult.data rows, then adult.test's with the trailing '.' of their labels removed
    n_train = train_test_rows("adult")
    assert n_train == 32561
    df = load("adult")
    assert len(df) - n_train == 16281
    assert set(df["class"].iloc[:n_train]) == set(df["class"].iloc[n_train:]) == {"<=50K", ">50K"}
    numeric = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    assert [c for c in df.columns if pd.api.types.is_integer_dtype(df[c])] == numeric
    assert set(df.columns[df.isna().any()]) == {"workclass", "occupation", "native-country"}  # the '?' cells


def test_train_test_rows_other_set():
    with pytest.raises(ValueError, match="monk1"):
        train_test_rows("iris")


def test_describe():
    table = describe()
    assert list(table.index) == sorted(EXPECTED)
    for name, (rows, attributes, _classes, _) in EXPECTED.items():
        assert table.loc[name, "rows"] == rows
        assert table.loc[name, "attributes"] == attributes
    assert {"source", "licence", "notes"} <= set(table.columns)


def test_bundled_files_and_licences():
    folder = _bundled()
    files = sorted(p.name for p in folder.iterdir() if p.name.endswith(".csv.gz"))
    assert files == sorted(f"{n}.csv.gz" for n in EXPECTED)
    total = sum(len((folder / f).read_bytes()) for f in files)
    assert total < 1_000_000
    licences = (folder / "LICENSES.md").read_text(encoding="utf-8")
    for f in files:
        assert f"`{f}`" in licences
    for credit in ["CC BY 4.0", "Zwitter", "Soklic", "Dawson", "NIDDK"]:
        assert credit in licences


def test_missing_only_from_empty_cells():
    # hepatitis has missing numeric and nominal cells; nothing else is missing
    df = load("hepatitis")
    assert df["PROTIME"].isna().sum() > 0
    assert np.issubdtype(df["PROTIME"].dtype, np.floating)
