"""The compiled part of pandas-anon (everything else is configured in pyproject.toml): the
hash-grouping kernels of ``pandas_anon.engine.hashing`` and the optimal search's kernel
(``pandas_anon.anonymization.fulldomain.ola``), which share ``_grouping.h``.

Both extensions are optional: where they cannot be compiled (no C compiler), the install
still succeeds and numpy and Python compute the same results, more slowly; CI checks that
they were compiled.
"""

import numpy
from setuptools import Extension, setup

GROUPING = ["pandas_anon/engine/_grouping.h"]

setup(
    ext_modules=[
        Extension(
            "pandas_anon.engine._kernels",
            sources=["pandas_anon/engine/_kernels.c"],
            include_dirs=[numpy.get_include()],  # numpy's allocation handlers (the pool)
            depends=GROUPING,
            optional=True,
        ),
        Extension(
            "pandas_anon.anonymization.fulldomain._ola",
            sources=["pandas_anon/anonymization/fulldomain/_ola.c"],
            include_dirs=["pandas_anon/engine"],
            depends=GROUPING,
            optional=True,
        ),
    ]
)
