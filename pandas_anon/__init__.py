"""pandas-anon: find and remove re-identification risk in pandas DataFrames.

Importing the package registers the ``df.anon`` accessor::

    import pandas_anon
    df.anon.singletons(["anno_nascita", "comune_residenza", "sesso"])
    df.anon.best_qid(max_size=3)

Every accessor method is also a function taking the frame first (``pandas_anon.singletons(df,
qid)``), and the engine behind them (:class:`EncodedFrame`, :class:`FrequencySet`) is public
for code that builds on equivalence classes.
"""

from pandas_anon import accessor as _accessor  # noqa: F401  (registers df.anon)
from pandas_anon import datasets
from pandas_anon.anonymization.generalize import generalize
from pandas_anon.anonymization.kanon import anonymize, kanon
from pandas_anon.detect.best_qid import best_qid
from pandas_anon.detect.figures import identifiers, risk, singletons
from pandas_anon.detect.results import BestQID, Generalization, Risk, Singletons
from pandas_anon.engine.encoding import EncodedFrame, FrequencySet, Grouping
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
    InfeasibleError,
    InputFileError,
    InvalidParameterError,
    InvalidQIDError,
    OneClassWarning,
    OutputFileError,
    UnhashableValueError,
)
from pandas_anon.gate import pandera_checks as _validation  # noqa: F401  (registers the pandera checks)
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.plugins.hookspecs import hookimpl
from pandas_anon.plugins.registry import get_hierarchy, hierarchies, plugin_status
from pandas_anon.privacy.models import KAnonymity, LDiversity, TCloseness
from pandas_anon.studies.strategy import Study, study

__version__ = "0.1.0"

__all__ = [
    "AllMissingColumnError",
    "AnonError",
    "AnonWarning",
    "BestQID",
    "ColumnNotFoundError",
    "DuplicateColumnsError",
    "EmptyDataError",
    "EncodedFrame",
    "IncompleteRowsWarning",
    "FrequencySet",
    "Generalization",
    "Grouping",
    "Hierarchy",
    "HierarchyError",
    "HierarchyFallbackWarning",
    "InfeasibleError",
    "InputFileError",
    "InvalidParameterError",
    "InvalidQIDError",
    "KAnonymity",
    "LDiversity",
    "OneClassWarning",
    "OutputFileError",
    "Risk",
    "Singletons",
    "Study",
    "TCloseness",
    "UnhashableValueError",
    "best_qid",
    "datasets",
    "anonymize",
    "generalize",
    "kanon",
    "get_hierarchy",
    "hierarchies",
    "hookimpl",
    "identifiers",
    "risk",
    "plugin_status",
    "singletons",
    "study",
]
