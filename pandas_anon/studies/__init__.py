"""Studies: comparisons of anonymization strategies on one table, reproducing published ones.

Owns the strategy study of Pastore et al. (2020), "Detecting and Generalizing
Quasi-Identifiers by Affecting Singletons", section 3.2
and Table 1 (:mod:`~pandas_anon.studies.strategy`), and the comparison of anonymization
methods on one table by the same figures (:mod:`~pandas_anon.studies.compare`).

May import: :mod:`pandas_anon.anonymization` and every layer below it.
"""
