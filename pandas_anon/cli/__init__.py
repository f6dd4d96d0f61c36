"""The command line, ``pandas-anon``: the only package that parses arguments.

One module per command (:mod:`~pandas_anon.cli.scan`, :mod:`~pandas_anon.cli.study`,
:mod:`~pandas_anon.cli.anonymize`, :mod:`~pandas_anon.cli.ke_anon`,
:mod:`~pandas_anon.cli.compare`, :mod:`~pandas_anon.cli.demo`,
:mod:`~pandas_anon.cli.plugins`, :mod:`~pandas_anon.cli.check`), each a thin layer over the
library that imports it when the command runs; :mod:`~pandas_anon.cli.main` builds the parser
and dispatches. Nothing in the library imports this package.

May import: anything in the package.
"""
