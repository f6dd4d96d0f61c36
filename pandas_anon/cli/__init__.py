"""The command line, ``pandas-anon``: the only package that parses arguments.

Owns the commands (``check``, ``scan``, ``anonymize``, ``hierarchies``, ``demo``...) as thin
layers over the library; nothing in the library imports it.

May import: anything in the package.
"""
