"""The gate: checks that fail a table exposing people, for CI and pre-commit.

Owns reading delimited files (:mod:`~pandas_anon.gate.io`), the configuration of
``pandas-anon check`` (:mod:`~pandas_anon.gate.config`), the check of a file against it
(:mod:`~pandas_anon.gate.check`) and the pandera checks
(:mod:`~pandas_anon.gate.pandera_checks`). No argument parsing: that is :mod:`pandas_anon.cli`.

May import: every layer below it (engine, hierarchy, privacy, detect, anonymization).
"""
