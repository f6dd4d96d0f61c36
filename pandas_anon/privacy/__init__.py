"""Privacy models and the figures a released table reaches.

Owns the definitions: the models an anonymization enforces (k-anonymity, l-diversity,
t-closeness in :mod:`~pandas_anon.privacy.models`) and the measures of what a frame reaches
(:mod:`~pandas_anon.privacy.measures`), one definition per figure shared by the algorithms,
the checks and the gate.

May import: :mod:`pandas_anon.engine`, :mod:`pandas_anon.detect` and the foundation modules.
"""
