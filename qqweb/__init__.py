"""qqweb's project package. Before anything imports numpy (and its BLAS), the number of
BLAS threads each process uses is set from ``QQ_BLAS_THREADS`` (default 1), unless the
usual variables are set already: a web request's maths (one query encoded, the vector
index's scores) and a dedup block are each one core's work, and on a machine whose
cores other processes hold, a threaded BLAS waits for them. Measured on the 2-core
machine here at load 5-9: one query encoded in 22-44 ms with one thread against 320-845
ms with two (either engine). A process that wants more sets ``OMP_NUM_THREADS`` itself."""

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, os.environ.get("QQ_BLAS_THREADS", "1"))

from qqweb.celery import app as celery_app  # noqa: E402  (after the threads are set)

__all__ = ["celery_app"]
