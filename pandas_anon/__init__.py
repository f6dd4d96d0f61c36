"""pandas-anon: find and remove re-identification risk in pandas DataFrames.

Importing the package registers the ``df.anon`` accessor::

    import pandas_anon
    df.anon.singletons(["anno_nascita", "comune_residenza", "sesso"])
    df.anon.best_qid(max_size=3)

Every accessor method is also a function taking the frame first (``pandas_anon.singletons(df,
qid)``), and the engine behind them (:class:`EncodedFrame`, :class:`FrequencySet`) is public
for code that builds on equivalence classes.

Importing the package is cheap: it registers the accessor and the pandera checks' hook, and
each public name imports the module defining it on first use (PEP 562), so that ``import
pandas_anon`` and ``pandas-anon --help`` cost little more than ``import pandas``. pandera is
never imported here; the checks are registered with it as soon as both are imported
(:mod:`pandas_anon.gate.pandera_checks`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pandas_anon import accessor as _accessor  # registers df.anon
from pandas_anon.errors import (
    AllMissingColumnError,
    AnonError,
    AnonWarning,
    ColumnNotFoundError,
    DuplicateColumnsError,
    EmptyDataError,
    HierarchyError,
    HierarchyFallbackWarning,
    IncompleteRowsWarning,
    IndexDataError,
    InfeasibleError,
    InputFileError,
    InvalidParameterError,
    InvalidQIDError,
    LimitExceededError,
    MissingDependencyError,
    NotAFrameError,
    OneClassWarning,
    OutputFileError,
    UnhashableValueError,
    UtilityWarning,
)
from pandas_anon.gate import pandera_hook as _pandera_hook
from pandas_anon.imports import when_imported as _when_imported

if TYPE_CHECKING:
    from pandas_anon import datasets, testing
    from pandas_anon.anonymization.generalize import generalize
    from pandas_anon.anonymization.intervals import intervals
    from pandas_anon.anonymization.kanon import anonymize, kanon
    from pandas_anon.anonymization.mondrian.algorithm import Mondrian
    from pandas_anon.anonymization.noise.ke import NoisePlan, ke_anon, ke_decide
    from pandas_anon.anonymization.noise.planning import KEPlanning, ke_plan
    from pandas_anon.anonymization.reinforcement.algorithm import TreeReinforcement
    from pandas_anon.anonymization.reinforcement.mates import Mate, paper_utility
    from pandas_anon.anonymization.reinforcement.reinforce import reinforce
    from pandas_anon.anonymization.reports import (
        AnonymizationReport,
        GeneralizationReport,
        KEAnonymizationReport,
    )
    from pandas_anon.anonymization.transformation import Transformation
    from pandas_anon.detect.best_qid import best_qid
    from pandas_anon.detect.figures import identifiers, risk, singletons
    from pandas_anon.detect.individual import IndividualRisk, individual_risk
    from pandas_anon.detect.results import BestQID, Risk, Singletons
    from pandas_anon.detect.suda import Suda, suda
    from pandas_anon.engine.encoding import EncodedFrame
    from pandas_anon.engine.frequency import FrequencySet
    from pandas_anon.engine.grouping import Grouping
    from pandas_anon.engine.weights import melt_counts
    from pandas_anon.hierarchy import Hierarchy, read_arx_csv, write_arx_csv
    from pandas_anon.plugins.hookspecs import hookimpl
    from pandas_anon.plugins.registry import get_hierarchy, hierarchies, plugin_status
    from pandas_anon.privacy.models import KAnonymity, LDiversity, TCloseness
    from pandas_anon.studies.attacks import AttackRisk, Attacks, attacks
    from pandas_anon.studies.compare import Comparison, compare
    from pandas_anon.studies.handover import RiskReport, report_html, risk_report
    from pandas_anon.studies.strategy import Study, study

__version__ = "0.1.0"

#: Each public name imported on first use, by the module defining it (a module itself when the
#: name is a module). A name that moves is one line here and one under TYPE_CHECKING above.
_LAZY = {
    "datasets": "pandas_anon.datasets",
    "generalize": "pandas_anon.anonymization.generalize",
    "anonymize": "pandas_anon.anonymization.kanon",
    "kanon": "pandas_anon.anonymization.kanon",
    "ke_anon": "pandas_anon.anonymization.noise.ke",
    "ke_decide": "pandas_anon.anonymization.noise.ke",
    "NoisePlan": "pandas_anon.anonymization.noise.ke",
    "ke_plan": "pandas_anon.anonymization.noise.planning",
    "KEPlanning": "pandas_anon.anonymization.noise.planning",
    "Mondrian": "pandas_anon.anonymization.mondrian.algorithm",
    "TreeReinforcement": "pandas_anon.anonymization.reinforcement.algorithm",
    "Mate": "pandas_anon.anonymization.reinforcement.mates",
    "paper_utility": "pandas_anon.anonymization.reinforcement.mates",
    "reinforce": "pandas_anon.anonymization.reinforcement.reinforce",
    "best_qid": "pandas_anon.detect.best_qid",
    "identifiers": "pandas_anon.detect.figures",
    "risk": "pandas_anon.detect.figures",
    "singletons": "pandas_anon.detect.figures",
    "individual_risk": "pandas_anon.detect.individual",
    "IndividualRisk": "pandas_anon.detect.individual",
    "suda": "pandas_anon.detect.suda",
    "Suda": "pandas_anon.detect.suda",
    "RiskReport": "pandas_anon.studies.handover",
    "report_html": "pandas_anon.studies.handover",
    "risk_report": "pandas_anon.studies.handover",
    "BestQID": "pandas_anon.detect.results",
    "AnonymizationReport": "pandas_anon.anonymization.reports",
    "KEAnonymizationReport": "pandas_anon.anonymization.reports",
    "GeneralizationReport": "pandas_anon.anonymization.reports",
    "Transformation": "pandas_anon.anonymization.transformation",
    "Risk": "pandas_anon.detect.results",
    "Singletons": "pandas_anon.detect.results",
    "EncodedFrame": "pandas_anon.engine.encoding",
    "FrequencySet": "pandas_anon.engine.frequency",
    "Grouping": "pandas_anon.engine.grouping",
    "melt_counts": "pandas_anon.engine.weights",
    "Hierarchy": "pandas_anon.hierarchy",
    "read_arx_csv": "pandas_anon.hierarchy",
    "write_arx_csv": "pandas_anon.hierarchy",
    "testing": "pandas_anon.testing",
    "hookimpl": "pandas_anon.plugins.hookspecs",
    "get_hierarchy": "pandas_anon.plugins.registry",
    "hierarchies": "pandas_anon.plugins.registry",
    "plugin_status": "pandas_anon.plugins.registry",
    "KAnonymity": "pandas_anon.privacy.models",
    "LDiversity": "pandas_anon.privacy.models",
    "TCloseness": "pandas_anon.privacy.models",
    "Study": "pandas_anon.studies.strategy",
    "compare": "pandas_anon.studies.compare",
    "attacks": "pandas_anon.studies.attacks",
    "Attacks": "pandas_anon.studies.attacks",
    "AttackRisk": "pandas_anon.studies.attacks",
    "intervals": "pandas_anon.anonymization.intervals",
    "Comparison": "pandas_anon.studies.compare",
    "study": "pandas_anon.studies.strategy",
}

_pandera_hook.install()
_when_imported("dask.dataframe", _accessor.register_dask, "the .anon accessor on Dask frames")


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use, then kept as a global."""
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    imported = importlib.import_module(module)
    value = imported if module == f"{__name__}.{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "AllMissingColumnError",
    "MissingDependencyError",
    "AnonError",
    "AnonymizationReport",
    "AnonWarning",
    "BestQID",
    "ColumnNotFoundError",
    "DuplicateColumnsError",
    "EmptyDataError",
    "EncodedFrame",
    "IncompleteRowsWarning",
    "IndexDataError",
    "FrequencySet",
    "GeneralizationReport",
    "Grouping",
    "Hierarchy",
    "HierarchyError",
    "HierarchyFallbackWarning",
    "InfeasibleError",
    "InputFileError",
    "InvalidParameterError",
    "InvalidQIDError",
    "KAnonymity",
    "KEAnonymizationReport",
    "KEPlanning",
    "LDiversity",
    "LimitExceededError",
    "Mate",
    "melt_counts",
    "Mondrian",
    "NoisePlan",
    "NotAFrameError",
    "OneClassWarning",
    "UtilityWarning",
    "OutputFileError",
    "Risk",
    "Singletons",
    "IndividualRisk",
    "Suda",
    "Study",
    "Comparison",
    "TCloseness",
    "Transformation",
    "TreeReinforcement",
    "UnhashableValueError",
    "best_qid",
    "datasets",
    "anonymize",
    "generalize",
    "kanon",
    "ke_anon",
    "ke_decide",
    "ke_plan",
    "get_hierarchy",
    "hierarchies",
    "hookimpl",
    "identifiers",
    "risk",
    "paper_utility",
    "plugin_status",
    "read_arx_csv",
    "reinforce",
    "report_html",
    "risk_report",
    "RiskReport",
    "singletons",
    "individual_risk",
    "suda",
    "study",
    "compare",
    "attacks",
    "Attacks",
    "AttackRisk",
    "intervals",
    "testing",
    "write_arx_csv",
]
