"""Resampling protocols: repeated stratified k-fold and repeated random splits.

Splitters yield ``(train_index, test_index)`` pairs of integer arrays, like
scikit-learn's, and are seeded by `random_state` so every run repeats.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

__all__ = ["RepeatedStratifiedKFold", "RepeatedRandomSplit"]


def _label_codes(y):
    values = pd.Series(np.asarray(y, dtype=object))
    if values.isna().any():
        raise ValueError("`y` has missing labels.")
    codes, _ = pd.factorize(values, sort=False)
    return codes


class RepeatedStratifiedKFold:
    """Stratified k-fold cross-validation, repeated with fresh shuffles.

    Within each repetition the rows of every class are shuffled and dealt to
    the folds in turn, so each fold holds about ``1/k`` of every class. The
    5 x 5 protocol of Jakulin & Rish (Table 1) is ``n_splits=5, n_repeats=5``.

    Parameters
    ----------
    n_splits : int, default=5
    n_repeats : int, default=1
    random_state : None, int or numpy Generator

    Examples
    --------
    >>> splitter = RepeatedStratifiedKFold(n_splits=2, n_repeats=1, random_state=0)
    >>> [len(test) for _, test in splitter.split(None, ["a", "a", "b", "b"])]
    [2, 2]
    """

    def __init__(
        self, *, n_splits: int = 5, n_repeats: int = 1, random_state: int | np.random.Generator | None = None
    ) -> None:
        if not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
            raise ValueError(f"`n_splits` must be an integer >= 2, got {n_splits!r}.")
        if not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
            raise ValueError(f"`n_repeats` must be an integer >= 1, got {n_repeats!r}.")
        self.n_splits = int(n_splits)
        self.n_repeats = int(n_repeats)
        self.random_state = random_state

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of (train, test) pairs yielded (the arguments are ignored, as in scikit-learn)."""
        return self.n_splits * self.n_repeats

    def split(self, X: Any, y: ArrayLike, groups: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train_index, test_index)`` for every fold of every repetition.

        Parameters
        ----------
        X : any
            Ignored (scikit-learn's signature); the rows are those of `y`.
        y : array-like of shape (n_rows,)
            Class labels, the strata.
        groups : any
            Ignored.

        Yields
        ------
        train_index, test_index : ndarray of int
            Sorted row positions.

        Raises
        ------
        ValueError
            For missing labels, or fewer rows than folds.
        """
        codes = _label_codes(y)
        n = len(codes)
        if n < self.n_splits:
            raise ValueError(f"Cannot split {n} rows into n_splits={self.n_splits} folds.")
        rng = np.random.default_rng(self.random_state)
        for _ in range(self.n_repeats):
            fold_of = np.empty(n, dtype=np.int64)
            start = int(rng.integers(self.n_splits))
            for c in range(codes.max() + 1):
                rows = rng.permutation(np.flatnonzero(codes == c))
                # Deal rows to folds in turn, continuing where the previous class stopped,
                # so fold sizes differ by at most one.
                fold_of[rows] = (start + np.arange(len(rows))) % self.n_splits
                start = (start + len(rows)) % self.n_splits
            for k in range(self.n_splits):
                test = np.flatnonzero(fold_of == k)
                train = np.flatnonzero(fold_of != k)
                yield train, test


class RepeatedRandomSplit:
    """Random train/test splits, repeated (Liang & Srebro's 90/10 protocol).

    Parameters
    ----------
    test_size : float, default=0.1
        Fraction of rows in each test set, in (0, 1).
    n_repeats : int, default=10
    random_state : None, int or numpy Generator

    Examples
    --------
    >>> splitter = RepeatedRandomSplit(test_size=0.25, n_repeats=2, random_state=0)
    >>> [(len(tr), len(te)) for tr, te in splitter.split(list(range(8)))]
    [(6, 2), (6, 2)]
    """

    def __init__(
        self, *, test_size: float = 0.1, n_repeats: int = 10, random_state: int | np.random.Generator | None = None
    ) -> None:
        if not 0 < float(test_size) < 1:
            raise ValueError(f"`test_size` must be in (0, 1), got {test_size!r}.")
        if not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
            raise ValueError(f"`n_repeats` must be an integer >= 1, got {n_repeats!r}.")
        self.test_size = float(test_size)
        self.n_repeats = int(n_repeats)
        self.random_state = random_state

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of (train, test) pairs yielded (the arguments are ignored, as in scikit-learn)."""
        return self.n_repeats

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train_index, test_index)`` pairs.

        Parameters
        ----------
        X : array-like or None
            The rows (only their number is used).
        y : array-like, optional
            Counted instead when `X` is None.
        groups : any
            Ignored.

        Yields
        ------
        train_index, test_index : ndarray of int
            Sorted row positions.

        Raises
        ------
        ValueError
            If the test fraction leaves no training rows.
        """
        n = len(X) if X is not None else len(y)
        n_test = max(1, int(round(self.test_size * n)))
        if n_test >= n:
            raise ValueError(f"A test fraction of {self.test_size} leaves no training rows out of {n}.")
        rng = np.random.default_rng(self.random_state)
        for _ in range(self.n_repeats):
            order = rng.permutation(n)
            yield np.sort(order[n_test:]), np.sort(order[:n_test])
