"""qqweb's project package. Before anything imports numpy (and its BLAS), the number of
BLAS threads each process uses is set from ``QQ_BLAS_THREADS`` (default 1), unless the
usual variables are set already: a web request's maths (one query encoded, the vector
index's scores) and a dedup block are each one core's work, and on a machine whose
cores other processes hold, a threaded BLAS waits for them. Measured on the 2-core
machine here at load 5-9: one query encoded in 22-44 ms with one thread against 320-845
ms with two (either engine). A process that wants more sets ``OMP_NUM_THREADS`` itself.

The Celery app is created when Django starts (``QqwebConfig.ready``), not here: importing
the kernel's framework-free modules (``qqweb.lib.errors``, ``qqweb.lib.vectors`` ...) from a
library imports this package, and must not load Celery or Django. ``celery -A qqweb``
finds ``qqweb.celery`` itself."""

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, os.environ.get("QQ_BLAS_THREADS", "1"))
