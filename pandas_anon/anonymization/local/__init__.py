"""Local recoding: generalize only the rows at risk.

Full-domain generalization writes a column at one level on every row; local recoding writes
each combination of quasi-identifier values at its own levels, so the rows that already
meet the privacy goal keep their values. :mod:`~.greedy` is ``kanon(k, algo="local")``: the
classes that break the goal climb their hierarchies one step at a time, the cheapest step
that rescues rows first (Pastore et al.'s principle of recoding the singletons only,
generalized to any k, l and t).

May import what :mod:`pandas_anon.anonymization` may, and the other anonymization modules.
"""
