"""Lan et al.'s decision-tree privacy reinforcement ("A Privacy Reinforcement Approach against
De-identified Dataset"): the algorithm and its rounds
(:mod:`~pandas_anon.anonymization.reinforcement.algorithm`), the decision trees grown on the
frequency set (:mod:`~pandas_anon.anonymization.reinforcement.forest`), the mating of singular
paths and the utility function (:mod:`~pandas_anon.anonymization.reinforcement.mates`), how a
column is masked (:mod:`~pandas_anon.anonymization.reinforcement.masks`) and the call
``df.anon.reinforce`` (:mod:`~pandas_anon.anonymization.reinforcement.reinforce`)."""
