"""Detection: how exposed the people of a table are, before anything is changed.

Owns singletons, identifiers and the risk figures of a quasi-identifier
(:mod:`~pandas_anon.detect.figures`), the search over column subsets
(:mod:`~pandas_anon.detect.subsets`) behind the best quasi-identifier
(:mod:`~pandas_anon.detect.best_qid`), the gate's rule (:mod:`~pandas_anon.detect.exposure`)
and the result objects (:mod:`~pandas_anon.detect.results`).

May import: :mod:`pandas_anon.engine` and the foundation modules.
"""
