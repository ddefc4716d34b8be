"""Public classification data sets bundled with graphmodels.

Each set is a gzip-compressed CSV in ``graphmodels/data/bundled/``: a header row, the
attributes first and the class column, named ``class``, last; missing values are empty
cells.  Sources, licences and the ways each copy differs from the UCI original are in
``bundled/LICENSES.md`` and in :func:`info` / :func:`describe`.

Column types follow the file: a column whose non-missing cells all parse as numbers is read
as numbers (``int64``, or ``float64`` when it has missing cells or decimals); every other
column is read as strings.  Only empty cells are missing: text such as ``"NA"`` or ``"None"``
stays text.  The class column follows the same rule, so class labels that are written as
integers stay integers (``wine``: 1/2/3, ``monk1-3``: 0/1) and all other labels are strings.
Integer-coded categorical attributes (``monk1-3``, ``zoo``, ``breast-cancer-wisconsin``) are
therefore integer columns; the encoders treat them as categories and the discretizers leave
them alone when they have few distinct values.  Integer measurements (``adult``'s ``age``,
``fnlwgt``, ``capital-gain``, ``hours-per-week``, ...) are integer columns too; the models'
default discretizer cuts them and warns that it did, ``discretizer="mdl"`` cuts them silently.
"""

from __future__ import annotations

import difflib
import functools
from importlib import resources
from typing import Any, Literal, NamedTuple, overload

import pandas as pd

__all__ = ["describe", "info", "list_datasets", "load", "train_test_rows"]

_CC_BY = "UCI Machine Learning Repository, CC BY 4.0 (credit the repository and the donors)"
_UNDIN = "github Undin/RecommenderSystem datasets/{} (Weka/OpenML ARFF)"
_HGS = "github icesky0125/dataset-and-raw-results-for-HGS-paper datasets/{} (ARFF)"
_ORANGE = "orange3 3.40.0 wheel, Orange/{}"


class _Meta(NamedTuple):
    rows: int
    attributes: int
    classes: int
    numeric_attributes: int
    missing_cells: int
    original_name: str
    source: str
    licence: str
    notes: str


# Derived from the project's data-set MANIFEST.tsv.  ``numeric_attributes`` counts numeric
# attributes with more than 10 distinct values.
_META = {
    "adult": _Meta(
        48842,
        14,
        2,
        6,
        6465,
        "Adult (Census Income; extracted by B. Becker from the 1994 US Census database)",
        "github j2kun/boosting data/adult.train + data/adult.test (the UCI adult.data and adult.test files)",
        _CC_BY + "; cite Becker & Kohavi (1996), https://doi.org/10.24432/C5XW20",
        "Rows 1-32561 = adult.data, rows 32562-48842 = adult.test; the trailing '.' of the test "
        "labels removed ('>50K.' -> '>50K'); '?' are missing; no space after the commas.",
    ),
    "breast-cancer-wisconsin": _Meta(
        699,
        9,
        2,
        0,
        16,
        "breast-w (UCI Breast Cancer Wisconsin (Original), 699 rows)",
        _UNDIN.format("breast-w.arff"),
        _CC_BY,
        "UCI sample-code-number ID column absent; the 16 '?' in Bare_Nuclei are missing; "
        "class benign/malignant (UCI codes 2/4).",
    ),
    "car": _Meta(
        1728,
        6,
        4,
        0,
        0,
        "Car Evaluation",
        _UNDIN.format("car.arff"),
        _CC_BY,
        "None (values as in UCI).",
    ),
    "crx": _Meta(
        690,
        15,
        2,
        6,
        67,
        "Credit Approval (crx.data; Weka credit-a)",
        _UNDIN.format("credit-a.arff"),
        _CC_BY,
        "'?' are missing.",
    ),
    "glass": _Meta(
        214,
        9,
        6,
        9,
        0,
        "Glass Identification",
        _UNDIN.format("glass.arff"),
        _CC_BY,
        "UCI Id column absent; class values are Weka names (e.g. 'build wind float') for UCI codes 1-7.",
    ),
    "hepatitis": _Meta(
        155,
        19,
        2,
        6,
        167,
        "Hepatitis",
        _UNDIN.format("hepatitis.arff"),
        _CC_BY,
        "Class moved from first (UCI) to last column; '?' are missing.",
    ),
    "iris": _Meta(
        150,
        4,
        3,
        4,
        0,
        "Iris",
        _ORANGE.format("datasets/iris.tab"),
        _CC_BY + "; file taken from orange3 (GPL-3.0 package)",
        "None (values as in UCI).",
    ),
    "kr-vs-kp": _Meta(
        3196,
        36,
        2,
        0,
        0,
        "Chess (King-Rook vs. King-Pawn)",
        _UNDIN.format("kr-vs-kp.arff"),
        _CC_BY,
        "None (values as in UCI).",
    ),
    "lenses": _Meta(
        24,
        4,
        3,
        0,
        0,
        "Lenses",
        _ORANGE.format("tests/datasets/lenses.tab"),
        _CC_BY + "; file taken from orange3 (GPL-3.0 package)",
        "Words (young, myope, ...) instead of the UCI integer codes; UCI id column absent.",
    ),
    "lymphography": _Meta(
        148,
        18,
        4,
        0,
        0,
        "Lymphography",
        _UNDIN.format("lymph.arff"),
        _CC_BY + "; Ljubljana oncology data: credit M. Zwitter and M. Soklic",
        "Weka lymph.arff coding.",
    ),
    "monk1": _Meta(
        556,
        6,
        2,
        0,
        0,
        "MONK's Problems, monks-1",
        _UNDIN.format("monks-problems-1_train.arff + monks-problems-1_test.arff"),
        _CC_BY,
        "Rows 1-124 = monks-1.train, rows 125-556 = monks-1.test (the full 432-point "
        "instance space, which overlaps the training rows); UCI id column absent.",
    ),
    "monk2": _Meta(
        601,
        6,
        2,
        0,
        0,
        "MONK's Problems, monks-2",
        _UNDIN.format("monks-problems-2_train.arff + monks-problems-2_test.arff"),
        _CC_BY,
        "Rows 1-169 = monks-2.train, rows 170-601 = monks-2.test (the full 432-point "
        "instance space, which overlaps the training rows); UCI id column absent.",
    ),
    "monk3": _Meta(
        554,
        6,
        2,
        0,
        0,
        "MONK's Problems, monks-3",
        _UNDIN.format("monks-problems-3_train.arff + monks-problems-3_test.arff"),
        _CC_BY,
        "Rows 1-122 = monks-3.train, rows 123-554 = monks-3.test (the full 432-point "
        "instance space, which overlaps the training rows); UCI id column absent.",
    ),
    "pima": _Meta(
        768,
        8,
        2,
        8,
        0,
        "Pima Indians Diabetes (Weka diabetes)",
        _UNDIN.format("diabetes.arff"),
        "Pima Indians Diabetes data of the National Institute of Diabetes and Digestive "
        "and Kidney Diseases (NIDDK), formerly on UCI; no licence stated by the source",
        "Zeros are recorded as 0 (not missing), as in the original.",
    ),
    "tic-tac-toe": _Meta(
        958,
        9,
        2,
        0,
        0,
        "Tic-Tac-Toe Endgame",
        _HGS.format("tic-tac-toe.arff"),
        _CC_BY,
        "None (values as in UCI).",
    ),
    "titanic": _Meta(
        2201,
        3,
        2,
        0,
        0,
        "Titanic (Dawson 1995), 2201 passengers and crew",
        _ORANGE.format("datasets/titanic.tab"),
        "Public data: R. J. M. Dawson (1995), The 'unusual episode' data revisited, "
        "Journal of Statistics Education 3(3); not a UCI set; file taken from orange3 "
        "(GPL-3.0 package)",
        "Orange coding (status/age/sex words).",
    ),
    "voting": _Meta(
        435,
        16,
        2,
        0,
        392,
        "Congressional Voting Records (house-votes-84; Weka vote)",
        _UNDIN.format("vote.arff"),
        _CC_BY,
        "'?' (did not vote / unknown position) are missing.",
    ),
    "wine": _Meta(
        178,
        13,
        3,
        13,
        0,
        "Wine",
        _UNDIN.format("wine.arff"),
        _CC_BY,
        "Class 1/2/3 as in UCI, moved from first to last column.",
    ),
    "zoo": _Meta(
        101,
        16,
        7,
        0,
        0,
        "Zoo",
        _ORANGE.format("datasets/zoo.tab"),
        _CC_BY + "; file taken from orange3 (GPL-3.0 package)",
        "Animal-name column (a unique ID) dropped; class as words (mammal, ...) instead of UCI type codes 1-7.",
    ),
}

_ALIASES = {
    "census-income": "adult",
    "census": "adult",
    "vote": "voting",
    "votes": "voting",
    "house-votes-84": "voting",
    "breast-w": "breast-cancer-wisconsin",
    "breast-wisconsin": "breast-cancer-wisconsin",
    "wisconsin": "breast-cancer-wisconsin",
    "chess": "kr-vs-kp",
    "krkp": "kr-vs-kp",
    "diabetes": "pima",
    "pima-indians-diabetes": "pima",
    "credit-a": "crx",
    "credit-approval": "crx",
    "lymph": "lymphography",
    "tictactoe": "tic-tac-toe",
    "car-evaluation": "car",
    "monks-1": "monk1",
    "monks-2": "monk2",
    "monks-3": "monk3",
    "monks-problems-1": "monk1",
    "monks-problems-2": "monk2",
    "monks-problems-3": "monk3",
}

_TRAIN_ROWS = {"adult": 32561, "monk1": 124, "monk2": 169, "monk3": 122}


def list_datasets() -> list[str]:
    """Names of the bundled data sets.

    Returns
    -------
    names : list of str
        Sorted names accepted by :func:`load`.

    See Also
    --------
    load, describe

    Examples
    --------
    >>> names = list_datasets()
    >>> "iris" in names, names == sorted(names)
    (True, True)
    """
    return sorted(_META)


def _resolve(name):
    """Canonical data-set name for ``name`` (case-insensitive, ``_`` = ``-``, aliases)."""
    if not isinstance(name, str):
        raise TypeError(f"`name` must be a string, got {type(name).__name__}.")
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    key = _ALIASES.get(key, key)
    if key in _META:
        return key
    choices = list(_META) + list(_ALIASES)
    close = difflib.get_close_matches(key, choices, n=1)
    hint = f" Did you mean {_ALIASES.get(close[0], close[0])!r}?" if close else ""
    raise ValueError(f"unknown data set {name!r}; expected one of {list_datasets()}.{hint}")


@functools.cache
def _read(name):
    path = resources.files("graphmodels.data") / "bundled" / f"{name}.csv.gz"
    with path.open("rb") as fh:
        return pd.read_csv(fh, compression="gzip", keep_default_na=False, na_values=[""])


@overload
def load(name: str, *, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load(name: str, *, return_X_y: Literal[True]) -> tuple[pd.DataFrame, pd.Series]: ...
@overload
def load(name: str, *, return_X_y: bool = ...) -> pd.DataFrame | tuple[pd.DataFrame, pd.Series]: ...


def load(name: str, *, return_X_y: bool = False) -> pd.DataFrame | tuple[pd.DataFrame, pd.Series]:
    """Load a bundled data set as a DataFrame.

    Parameters
    ----------
    name : str
        Data-set name, see :func:`list_datasets`.  Case-insensitive; ``_`` and ``-`` are
        interchangeable; common aliases are accepted (``"vote"`` -> ``"voting"``,
        ``"breast-w"`` -> ``"breast-cancer-wisconsin"``, ``"chess"`` -> ``"kr-vs-kp"``,
        ``"diabetes"`` -> ``"pima"``, ``"credit-a"`` -> ``"crx"``, ``"lymph"`` ->
        ``"lymphography"``, ``"monks-1"`` -> ``"monk1"``, ``"census-income"`` -> ``"adult"``, ...).
    return_X_y : bool, default=False
        If True, return ``(X, y)`` instead of one table.

    Returns
    -------
    data : pandas.DataFrame of shape (n_rows, n_attributes + 1)
        Attributes first, the class column ``"class"`` last; missing cells are NaN.
        Returned when ``return_X_y`` is False.  A fresh copy on every call.
    (X, y) : tuple of pandas.DataFrame of shape (n_rows, n_attributes) and pandas.Series of shape (n_rows,)
        Returned when ``return_X_y`` is True; ``y`` is named ``"class"``.

    Raises
    ------
    ValueError
        If ``name`` is unknown; the message lists the valid names and the closest one.

    Notes
    -----
    Numeric-looking columns are numbers, all others strings; only empty cells are missing
    (see the module docstring).  For ``adult`` and ``monk1``-``monk3`` the UCI training rows
    come first, see :func:`train_test_rows`.

    Examples
    --------
    >>> df = load("iris")
    >>> df.shape, df.columns[-1]
    ((150, 5), 'class')
    >>> X, y = load("vote", return_X_y=True)
    >>> X.shape, y.name
    ((435, 16), 'class')
    """
    data = _read(_resolve(name)).copy()
    if return_X_y:
        return data.drop(columns="class"), data["class"]
    return data


def info(name: str) -> dict[str, Any]:
    """Metadata of a bundled data set.

    Parameters
    ----------
    name : str
        Data-set name or alias, as for :func:`load`.

    Returns
    -------
    meta : dict
        Keys ``name``, ``rows``, ``attributes``, ``classes``, ``numeric_attributes``
        (numeric attributes with more than 10 distinct values), ``missing_cells``,
        ``original_name``, ``source``, ``licence`` and ``notes`` (how the copy differs from
        the UCI original).

    Examples
    --------
    >>> meta = info("wine")
    >>> meta["rows"], meta["attributes"], meta["classes"]
    (178, 13, 3)
    """
    key = _resolve(name)
    return {"name": key, **_META[key]._asdict()}


def describe() -> pd.DataFrame:
    """Metadata of all bundled data sets as one table.

    Returns
    -------
    table : pandas.DataFrame of shape (n_datasets, 9)
        One row per data set, indexed by name, with the columns of :func:`info`.

    Examples
    --------
    >>> table = describe()
    >>> int(table.loc["titanic", "rows"])
    2201
    """
    table = pd.DataFrame([info(n) for n in list_datasets()]).set_index("name")
    return table


def train_test_rows(name: str) -> int:
    """Number of UCI training rows at the top of a table that holds the UCI train and test sets.

    The bundled ``adult`` table holds the UCI ``adult.data`` rows followed by the ``adult.test``
    rows; ``monk1``-``monk3`` hold the UCI training rows followed by the UCI test rows (the whole
    432-point instance space). So ``data.iloc[:n]`` is the original training set and
    ``data.iloc[n:]`` the original test set.

    Parameters
    ----------
    name : str
        ``"adult"``, ``"monk1"``, ``"monk2"`` or ``"monk3"`` (aliases as for :func:`load`).

    Returns
    -------
    n : int
        32561, 124, 169 or 122.

    Raises
    ------
    ValueError
        If the data set has no UCI train/test split recorded.

    References
    ----------
    .. [1] Thrun, S. B., et al. (1991). The MONK's problems: a performance comparison of
       different learning algorithms. Technical Report CMU-CS-91-197, Carnegie Mellon
       University.
    .. [2] Kohavi, R. (1996). Scaling up the accuracy of naive-Bayes classifiers: a
       decision-tree hybrid. *Proceedings of the 2nd International Conference on Knowledge
       Discovery and Data Mining (KDD)*, 202-207.

    Examples
    --------
    >>> n = train_test_rows("monk1")
    >>> df = load("monk1")
    >>> len(df.iloc[:n]), len(df.iloc[n:])
    (124, 432)
    >>> train_test_rows("adult")
    32561
    """
    key = _resolve(name)
    if key not in _TRAIN_ROWS:
        raise ValueError(
            f"data set {key!r} has no recorded UCI train/test split; expected one of "
            f"{sorted(_TRAIN_ROWS)}, got {name!r}."
        )
    return _TRAIN_ROWS[key]
