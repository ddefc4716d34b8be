"""pytest settings for the whole checkout (the tests' fixtures are in tests/conftest.py).

The examples of ``graphmodels/io/interop.py`` run pgmpy and pyAgrum, which come with the
``interop`` extra (``pip install -e ".[interop]"``, installed by the README's test command and
in CI). Without them its doctests are not collected, as tests/test_interop.py skips itself.
"""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("pgmpy") is None or importlib.util.find_spec("pyagrum") is None:
    collect_ignore.append("graphmodels/io/interop.py")
