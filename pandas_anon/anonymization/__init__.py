"""Anonymization: the methods that change a table until it meets a privacy model.

Owns recoding along hierarchies (:mod:`~pandas_anon.anonymization.recoding`,
:mod:`~pandas_anon.anonymization.generalize`), keyed pseudonyms of direct identifiers
(:mod:`~pandas_anon.anonymization.pseudonyms`), k-anonymity and its companions
(:mod:`~pandas_anon.anonymization.kanon`) and the full-domain searches
(:mod:`~pandas_anon.anonymization.fulldomain`). A new method is one more module here.

May import: :mod:`pandas_anon.engine`, :mod:`pandas_anon.hierarchy`,
:mod:`pandas_anon.privacy`, :mod:`pandas_anon.detect`, :mod:`pandas_anon.plugins` and the
foundation modules; never :mod:`pandas_anon.gate` or :mod:`pandas_anon.cli`.
"""
