"""pandas-anon: find and remove re-identification risk in pandas DataFrames.

Importing the package registers the ``df.anon`` accessor::

    import pandas_anon
    df.anon.singletons(["anno_nascita", "comune_residenza", "sesso"])
    df.anon.best_qid(max_size=3)

Every accessor method is also a function taking the frame first (``pandas_anon.singletons(df,
qid)``), and the engine behind them (:class:`EncodedFrame`, :class:`FrequencySet`) is public
for code that builds on equivalence classes.
"""

from . import accessor as _accessor  # noqa: F401  (registers df.anon)
from . import validation as _validation  # noqa: F401  (registers the pandera checks)
from . import datasets
from .detect import identifiers, risk, singletons
from .election import best_qid
from .encoding import EncodedFrame, FrequencySet, Grouping
from .generalization import generalize
from .kanon import anonymize, kanon
from .models import KAnonymity, LDiversity, TCloseness
from .hierarchy import Hierarchy
from .hierarchy.registry import get_hierarchy, hierarchies, plugin_status
from .hookspecs import hookimpl
from .errors import (
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
from .results import BestQID, Generalization, Risk, Singletons
from .strategy_study import Study, study

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
