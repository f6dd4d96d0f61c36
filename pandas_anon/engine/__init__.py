"""The engine: columns to integer codes, codes to equivalence classes.

Owns the one representation every method works on: columns encoded once to dense integer
codes (:mod:`~pandas_anon.engine.encoding`), combination keys built from them
(:mod:`~pandas_anon.engine.keys`), and the frequency set, the distinct combinations of a
quasi-identifier with their counts. Also the checks of what a user passes as columns
(:mod:`~pandas_anon.engine.columns`).

May import: :mod:`pandas_anon.errors`, :mod:`pandas_anon.params`, :mod:`pandas_anon.progress`,
:mod:`pandas_anon.formatting` and third-party libraries; nothing else of the package.
"""
