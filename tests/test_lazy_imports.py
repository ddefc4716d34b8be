"""`import graphmodels` loads no scipy, matplotlib or scikit-learn; the lazy wrappers are scipy's own.

Which modules get imported is checked, not how long it takes: a timing test would be flaky
(benchmarks/bench_import.py measures the time).
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special

import graphmodels
from graphmodels import _special

HEAVY = ("scipy", "matplotlib", "sklearn")
LIST_HEAVY = "import sys; {}; print(sorted(m for m in sys.modules if m.split('.')[0] in {!r}))"


def _heavy_modules_after(statement):
    """The heavy modules loaded by `statement` in a fresh interpreter, on this checkout."""
    env = dict(os.environ)
    root = str(Path(graphmodels.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    out = subprocess.run(
        [sys.executable, "-c", LIST_HEAVY.format(statement, HEAVY)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


@pytest.mark.parametrize(
    "statement",
    [
        "import graphmodels",
        "import graphmodels as gm; gm.datasets; gm.evaluation; gm.models.CLASSIFIERS",
        "from graphmodels.cli import _parser; _parser().format_help()",
    ],
)
def test_import_loads_no_scipy_matplotlib_sklearn(statement):
    assert _heavy_modules_after(statement) == "[]"


def test_plotting_is_imported_on_demand():
    assert "matplotlib" in _heavy_modules_after("import graphmodels as gm; gm.plotting")


@pytest.mark.parametrize(
    "name, args, kwargs",
    [
        ("xlogy", ([0.0, 0.5, 2.0, 3.0], [0.0, 0.1, 7.0, 1e-300]), {}),
        ("gammaln", ([0.5, 1.0, 10.5, 1e6],), {}),
        ("expit", ([-800.0, -1.5, 0.0, 3.25, 40.0],), {}),
        ("logsumexp", ([[-1.0, 2.0, -np.inf], [3.5, 0.25, 1e3]],), {}),
        ("logsumexp", ([[-1.0, 2.0, -np.inf], [3.5, 0.25, 1e3]],), {"axis": 1, "keepdims": True}),
        ("logsumexp", ([[1.0, 2.0], [3.0, 4.0]],), {"axis": 0, "b": [[1.0, -1.0], [0.5, 2.0]], "return_sign": True}),
    ],
)
def test_lazy_wrappers_forward_to_scipy_bit_for_bit(name, args, kwargs):
    args = tuple(np.asarray(a) for a in args)
    kwargs = {k: np.asarray(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    ours = getattr(_special, name)(*args, **kwargs)
    theirs = getattr(scipy.special, name)(*args, **kwargs)
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        np.testing.assert_array_equal(a, b, strict=True)


def test_lazy_wrappers_pass_ufunc_keywords():
    x, y = np.array([0.0, 2.0, 3.0]), np.array([5.0, 0.5, 4.0])
    out = np.full(3, -1.0)
    result = _special.xlogy(x, y, out=out, where=[True, True, False])
    assert result is out
    np.testing.assert_array_equal(out, [0.0, scipy.special.xlogy(2.0, 0.5), -1.0])
