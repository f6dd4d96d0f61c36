"""Noise: (k, ε)-anonymity, k-anonymity on some quasi-identifiers and Laplace noise on the
numeric others, scaled to each equivalence class.

Holohan, Antonatos, Braghin and Mac Aonghusa (2017), "(k, ε)-Anonymity: k-Anonymity with
ε-Differential Privacy". Owns the random sources (:mod:`~.sources`: a seeded one for research
and tests, a floating-point-safe one for releases), the method itself (:mod:`~.ke`: the plan
before noise, with its predicted information loss, and the noisy release) and the risk
measures of a noisy release (:mod:`~.linking`: nearest-neighbour linking, α-confident
k-anonymity).

May import what :mod:`pandas_anon.anonymization` may, and the other anonymization modules.
"""
