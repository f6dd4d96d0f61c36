"""pandas-anon's own algorithms, registered through the plugin hook like any plugin's."""

from __future__ import annotations

from pandas_anon.anonymization.fulldomain import datafly, exhaustive, incognito, ola, samarati
from pandas_anon.anonymization.fulldomain.method import FullDomainSearch
from pandas_anon.anonymization.local.greedy import LocalRecoding
from pandas_anon.anonymization.mondrian.algorithm import Mondrian
from pandas_anon.anonymization.reinforcement.algorithm import TreeReinforcement
from pandas_anon.plugins.hookspecs import AlgorithmRegister, hookimpl


@hookimpl
def register_algorithms(register: AlgorithmRegister) -> None:
    """The full-domain searches (generalization of whole columns along hierarchies, with
    suppression of the classes left violating), Mondrian (multidimensional partitions), and
    local recoding (only the classes breaking the goal generalized) and Lan et al.'s
    decision-tree privacy reinforcement (only the classes breaking the goal masked)."""
    register(
        FullDomainSearch(
            "ola", ola.search, "optimal: best-first branch and bound with predictive tagging"
        )
    )
    register(FullDomainSearch("datafly", datafly.search, "heuristic: Sweeney's Datafly"))
    register(
        FullDomainSearch("samarati", samarati.search, "lowest feasible height (Samarati 2001)")
    )
    register(
        FullDomainSearch(
            "incognito", incognito.search, "every feasible node (LeFevre et al. 2005), the best"
        )
    )
    register(
        FullDomainSearch("exhaustive", exhaustive.search, "every node evaluated: the reference")
    )
    register(Mondrian())
    register(LocalRecoding())
    register(TreeReinforcement())
