"""pytest settings for the whole checkout (the tests' fixtures are in tests/conftest.py).

The examples of ``graphmodels/io/interop.py`` run pgmpy and pyAgrum, which come with the
``interop`` extra (``pip install -e ".[interop]"``, installed by the README's test command and
in CI). Without them its doctests are not collected, as tests/test_interop.py skips itself.
"""

import importlib.util
import os
import sys

# The suite starts two xdist workers, notebook kernels, Dask workers and CLI subprocesses, and each
# compiles the package again where bytecode is not cached (PYTHONDONTWRITEBYTECODE, which some
# machines set): `pytest -n 2` took 361 s with it and 306 s without on the 2-core machine. Only
# for the test run: the checkout's __pycache__ folders (git-ignored) are written; the shell's
# environment is untouched.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

collect_ignore = []
if importlib.util.find_spec("pgmpy") is None or importlib.util.find_spec("pyagrum") is None:
    collect_ignore.append("graphmodels/io/interop.py")
