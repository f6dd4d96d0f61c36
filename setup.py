"""The compiled part of pandas-anon: the hash-grouping kernels of
``pandas_anon.engine.hashing`` (everything else is configured in pyproject.toml).

The extension is optional: where it cannot be compiled (no C compiler), the install still
succeeds and numpy computes the same groups, more slowly; CI checks that it was compiled.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pandas_anon.engine._kernels",
            sources=["pandas_anon/engine/_kernels.c"],
            optional=True,
        )
    ]
)
