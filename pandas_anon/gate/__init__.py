"""The gate: checks that fail a table exposing people, for CI and pre-commit.

Owns reading the tables of a file (:mod:`~pandas_anon.gate.io`, delimited text and zips;
:mod:`~pandas_anon.gate.formats`, JSON, Parquet and spreadsheets), the configuration of
``pandas-anon check`` (:mod:`~pandas_anon.gate.config`), count tables
(:mod:`~pandas_anon.gate.counts`), the check of a file against it
(:mod:`~pandas_anon.gate.check`), the reports for CI systems
(:mod:`~pandas_anon.gate.reporters`) and the pandera checks
(:mod:`~pandas_anon.gate.pandera_checks`). No argument parsing: that is :mod:`pandas_anon.cli`.

May import: every layer below it (engine, hierarchy, privacy, detect, anonymization).
"""
