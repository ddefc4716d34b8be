"""The BLAS thread limit of the hot paths (graphmodels._threads)."""

import os
import subprocess
import sys

import pytest


def test_scipy_blas_loaded_later_is_limited_too():
    """scipy's BLAS, loaded after the first call, runs on one thread inside the context as well."""
    pytest.importorskip("threadpoolctl")
    code = (
        "from graphmodels._threads import one_blas_thread\n"
        "with one_blas_thread():\n"
        "    pass\n"
        "import scipy.linalg\n"
        "from threadpoolctl import threadpool_info\n"
        "with one_blas_thread():\n"
        "    print(max(i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'))\n"
    )
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    assert result.stdout.strip() == "1"
