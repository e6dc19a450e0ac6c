"""Benchmarks: ``python -m benchmarks`` runs them and prints ratios against hand-written numpy.

Everything runs on one compute thread (``OMP_NUM_THREADS=1`` and its kin, unless
set already): a matrix product on a shared machine otherwise takes as many
threads as it finds free at that moment, and the ratios would measure the load.
"""

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
