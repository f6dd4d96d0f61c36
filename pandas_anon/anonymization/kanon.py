"""k-anonymity by full-domain generalization and suppression: ``df.anon.kanon(5)``.

The frame is reduced once to a lattice over its frequency set (:mod:`pandas_anon.anonymization.fulldomain.lattice`);
an algorithm picks a node (one level per quasi-identifier) satisfying the privacy models with
at most ``max_suppression`` of the rows suppressed; the node is then applied to the rows:
each quasi-identifier replaced by its label at the chosen level, and the rows of violating
classes suppressed (every quasi-identifier set to the top value ``*``, or dropped).
:func:`anonymize` returns the decision and its report without touching the rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from pandas_anon.anonymization.algorithms import Algorithm, Problem, get_algorithm
from pandas_anon.anonymization.method_choice import choose
from pandas_anon.anonymization.pseudonyms import salt_key
from pandas_anon.anonymization.recoding import (
    KEEP,
    HierarchyLike,
    hierarchy_for,
    read_beside,
    recode,
)
from pandas_anon.anonymization.reports import AnonymizationReport, attach, column_keys, report_of
from pandas_anon.anonymization.task_utility import scikit_learn, task_utility
from pandas_anon.anonymization.transformation import Transformation
from pandas_anon.anonymization.utility import measure
from pandas_anon.detect.exposure import MAX_SIZE, DirectIdentifier, direct_identifiers, scan
from pandas_anon.detect.figures import candidate_columns
from pandas_anon.engine.backends import dask_backend, is_dask
from pandas_anon.engine.backends.pandas import Tabulation, tabulate
from pandas_anon.engine.columns import (
    columns_except,
    require_columns,
    require_data,
    resolve_columns,
    sensitive_outside,
)
from pandas_anon.engine.memory import with_pooled_memory
from pandas_anon.errors import (
    HierarchyError,
    HierarchyFallbackWarning,
    IdentifierWarning,
    InvalidParameterError,
    InvalidQIDError,
    OneClassWarning,
    warn,
)
from pandas_anon.formatting import plural
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.hierarchy.builders import auto
from pandas_anon.params import flag, fraction, known_options, one_of, whole
from pandas_anon.plugins.registry import claimed_hierarchy
from pandas_anon.privacy.models import KAnonymity, LDiversity, PrivacyModel, TCloseness
from pandas_anon.progress import with_distributed_progress

#: Largest column set the gate's rule examines in zero configuration (as ``check`` does).
AUTO_QID_SIZE = MAX_SIZE
#: What ``identifiers=`` may do with a direct identifier column outside the QID.
IDENTIFIER_TREATMENTS = ("drop", "hash", "keep")


@dataclass(frozen=True)
class _Request:
    """What every search of one call shares (zero configuration runs several)."""

    frame: pd.DataFrame
    k: int
    models: list[PrivacyModel]
    hierarchies: Mapping[Hashable, HierarchyLike]
    algo: Algorithm | None  # None: zero configuration chooses (method_choice)
    max_suppression: float
    metric: str | Callable
    sensitive: Hashable | None
    progress: bool | None
    built: dict = field(default_factory=dict)  # hierarchies found so far (_by_default)
    #: the people each row of ``frame`` stands for (a Dask frame's digest), or None
    weights: np.ndarray | None = None


@with_distributed_progress
@with_pooled_memory
def anonymize(
    frame: pd.DataFrame,
    k: int,
    *,
    qid: Sequence[Hashable] | None = None,
    hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
    algo: str | Algorithm | None = None,
    max_suppression: float | str = 0.0,
    metric: str | Callable = "precision",
    l: float | LDiversity | None = None,  # noqa: E741  (the model's name)
    t: float | str | TCloseness | None = None,
    sensitive: Hashable | None = None,
    identifiers: str = "drop",
    progress: bool | None = None,
) -> Transformation:
    """Decide a k-anonymization of ``frame`` and report it, without writing a row.

    Choose the transformation (the recoding of each combination of quasi-identifier values,
    and the combinations suppressed) and its report, without writing a row:
    :meth:`Transformation.apply` writes them, and gives the frame :func:`kanon` returns. The
    frame is read once into its frequency set, the distinct combinations of the
    quasi-identifier with their rows [2]_; the algorithm ``algo`` decides on that set which
    transformation satisfies the privacy models (k-anonymity [1]_, and l-diversity [4]_ or
    t-closeness [5]_ of ``sensitive`` when asked) with at most ``max_suppression`` of the rows
    suppressed. The full-domain searches write each quasi-identifier at one level of its
    hierarchy on every row (a node of the generalization lattice [1]_; ``"ola"`` returns the
    node of smallest ``metric``, as OLA does [2]_); ``"mondrian"`` cuts the values into
    multidimensional partitions [3]_; ``"local"`` recodes only the rows of the classes that
    break the models [6]_.

    Without ``qid`` (zero configuration) every released column may identify: the QID is
    every column holding a value but ``sensitive`` and the direct identifiers, k-anonymous
    together in the release (the classic guarantee [1]_), so that ``pandas-anon check --k K``
    accepts what ``kanon(K)`` releases (the gate's rule, measured on the release:
    ``report.exposure``). Without ``algo`` either, each candidate method within its budget
    decides on the same frequency set and the one leaving the most cells unchanged is kept
    (:mod:`pandas_anon.anonymization.method_choice`; ``report.candidates``). The direct
    identifier columns (:func:`pandas_anon.detect.exposure.direct_identifiers`: a column on
    which nearly every row is alone) are found among the columns outside the QID, given or
    not, and treated as ``identifiers`` says; the report lists each.

    Parameters
    ----------
    frame : pandas.DataFrame or dask.dataframe.DataFrame
        The table to anonymize. It is not modified.
    k : int
        The smallest class size: a whole number of at least 1 (Python or numpy; not
        ``True``, not ``"5"``) and at most the number of rows.
    qid : sequence of hashable, optional
        The quasi-identifier columns (the report lists them in the frame's column order).
        Default None: zero configuration elects them (see above).
    hierarchies : mapping, optional
        ``{column: hierarchy}`` for some or all QID columns: a
        :class:`~pandas_anon.hierarchy.Hierarchy`, a registered name (``"it.comune"``) or a
        builder called with the column (as in a :func:`~pandas_anon.generalize` spec). A QID
        column left out gets the registered hierarchy that claims its name, else one built
        from its data (``auto``: intervals, dates or suppression); an algorithm that needs
        no hierarchy (``"mondrian"``, ``"tree"``) writes such a column by its values.
        Default None: none given.
    algo : str or Algorithm, optional
        Default None: ``"ola"`` with ``qid``, the method keeping the most without it (see
        above). A registered algorithm's name: ``"ola"`` (optimal), ``"incognito"`` (optimal),
        ``"samarati"``, ``"datafly"``, ``"exhaustive"`` (every node: the reference),
        ``"mondrian"`` (multidimensional partitions, no suppression), ``"local"`` (local
        recoding), ``"tree"`` (Lan et al.'s decision-tree reinforcement, which needs
        ``sensitive``), or one a plugin registers; or an algorithm object such as
        ``pandas_anon.Mondrian(relaxed=True)``.
    max_suppression : float or str, default 0.0
        The largest share of the rows that may be suppressed: a fraction from 0 to 1, or text
        as on the command line (``"5%"``, ``"0.05"``).
    metric : {"precision", "dm"} or callable, default "precision"
        What the search minimizes: precision, discernibility, or a function taking a node's
        statistics (``NodeStats``) and returning a number.
    l : int or LDiversity, optional
        A whole number: distinct l-diversity of ``sensitive`` (each class holds at least
        ``l`` distinct values); or an :class:`LDiversity` (``LDiversity(3, "entropy")``,
        ``LDiversity(3, "recursive", c=2)``). Default None: no l-diversity.
    t : float, str or TCloseness, optional
        t-closeness of ``sensitive``: a fraction from 0 to 1, or text as on the command line
        (``"20%"``, ``"0.2"``), with the ordered distance when ``sensitive`` is numeric and
        the equal distance otherwise; or a :class:`TCloseness` choosing the distance. Default
        None: no t-closeness.
    sensitive : hashable, optional
        The sensitive column that ``l`` and ``t`` read; it must not be in ``qid``, and zero
        configuration leaves it out of the QID. Default None.
    identifiers : {"drop", "hash", "keep"}, default "drop"
        What :func:`kanon` does with the direct identifier columns outside the QID:
        ``"drop"`` them, ``"hash"`` them (a keyed hash whose key is never stored; ``salt=``
        of :meth:`Transformation.apply` gives one) or ``"keep"`` them (with an
        :class:`IdentifierWarning`).
    progress : bool, optional
        A progress line on stderr during long searches (lattices above 2,000 nodes). Default
        None: shown only when stderr is a terminal; True or False force it.

    Returns
    -------
    Transformation
        The decision: ``tabulation`` (the frequency set, and the combination of each row),
        ``recodings`` (how each quasi-identifier is written for each combination),
        ``suppressed`` (the combinations suppressed), the direct ``identifiers`` and their
        ``treatment``, and ``report``, an
        :class:`~pandas_anon.anonymization.reports.AnonymizationReport` (``levels``,
        ``suppressed``, ``classes``, ``k_reached``, ``metrics``, ``risk``, ``choices``,
        ``exposure`` in zero configuration...) whose ``modified`` is None, since nothing was
        written.

    Raises
    ------
    InvalidParameterError
        When an argument is out of range: ``k`` not a whole number of at least 1, or above
        the number of rows; ``algo`` neither a registered name nor an algorithm;
        ``max_suppression`` or ``t`` not a fraction from 0 to 1; an unknown ``metric``; an
        invalid ``l``; ``l`` or ``t`` without ``sensitive``; ``identifiers`` not one of its
        three values; ``hierarchies`` not a mapping, or naming columns outside the QID (in
        zero configuration: columns that are no candidates for it).
    InvalidQIDError
        When ``qid`` is empty or names a column twice, when ``sensitive`` is in ``qid``, or
        when zero configuration finds no column left to anonymize (every column holding a
        value is the sensitive column or a direct identifier).
    ColumnNotFoundError
        When a column of ``qid``, or ``sensitive``, is not in the frame.
    DuplicateColumnsError
        When a column named labels several columns of the frame.
    EmptyDataError
        When the frame has no column, or (a pandas frame) no row.
    AllMissingColumnError
        When a QID or sensitive column holds only missing values.
    UnhashableValueError
        When a column read holds values that cannot be compared (lists, dicts).
    HierarchyError
        When a hierarchy given in ``hierarchies`` is malformed, cannot be built, or lacks a
        value of its column (the message quotes those values).
    UnknownNameError
        When ``hierarchies`` names a hierarchy that is not registered.
    InfeasibleError
        When no transformation satisfies the privacy models with at most
        ``max_suppression`` of the rows suppressed, or only suppressing every row would (a
        release of no row is no result).

    Warns
    -----
    OneClassWarning
        When the result is one class: every kept row is alike on the QID.
    IdentifierWarning
        When ``identifiers="keep"`` releases direct identifier columns.
    HierarchyFallbackWarning
        When a registered hierarchy claims a QID column but does not cover it, so a
        hierarchy built from the column's data is used instead.

    See Also
    --------
    kanon : The same decision, written: a k-anonymous copy of the frame.
    pandas_anon.compare : Several algorithms on one table, side by side.
    pandas_anon.ke_decide : The (k, ε) plan, whose k-quasis this function k-anonymizes.
    pandas_anon.reinforce : Lan et al.'s reinforcement (``algo="tree"``) as a call.

    Notes
    -----
    On a Dask frame the decision is taken on the frame's digest: one distributed pass
    reduces it to the distinct combinations of the columns read (the QID and the sensitive
    column; in zero configuration every column holding a value, less the direct identifiers),
    with the rows of each, and every figure weighs each combination by its rows.
    ``apply`` then writes the Dask frame lazily (docs/dask.md).

    References
    ----------
    .. [1] Saroha, "Survey of k-Anonymity", 2014, sections 2.2 (k-anonymity) and 2.3 to 2.5
       (generalization, suppression, the domain generalization lattice).
    .. [2] K. El Emam, F. K. Dankar et al., "A Globally Optimal k-Anonymity Method for the
       De-Identification of Health Data", JAMIA, 2009, section 3 (the frequency set), and
       its OLA search (predictive tagging).
    .. [3] K. LeFevre, D. J. DeWitt and R. Ramakrishnan, "Mondrian Multidimensional
       k-Anonymity", ICDE 2006, section 4.
    .. [4] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam, "l-Diversity:
       Privacy Beyond k-Anonymity", ACM TKDD, 2007.
    .. [5] N. Li, T. Li and S. Venkatasubramanian, "t-Closeness: Privacy Beyond
       k-Anonymity and l-Diversity", ICDE 2007.
    .. [6] M. Pastore, M. A. Pellegrino and V. Scarano, "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020, section 3.2.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "age": [21, 22, 23, 24, 25, 26, 27, 88],
    ...     "sex": ["F", "M", "F", "M", "F", "M", "F", "M"],
    ... })
    >>> decades = Hierarchy(df["age"], [["20-29"] * 7 + ["80-89"]])
    >>> decision = pandas_anon.anonymize(
    ...     df, 2, qid=["age", "sex"], hierarchies={"age": decades}, max_suppression=0.2
    ... )
    >>> decision.report.levels
    {'age': 1, 'sex': 0}
    >>> decision.report.suppressed, decision.report.k_reached, decision.report.modified
    (1, 3, None)

    Nothing is written until the decision is applied:

    >>> decision.apply(df)["age"].tolist()
    ['20-29', '20-29', '20-29', '20-29', '20-29', '20-29', '20-29', '*']
    """
    started = time.perf_counter()
    k = whole(k, "k", example=5)  # as KAnonymity parses it: a plain int
    models = _models(k, l, t, sensitive, frame)
    algorithm = _algorithm(algo, choose=qid is None)
    one_of(identifiers, "identifiers", IDENTIFIER_TREATMENTS)
    max_suppression = fraction(max_suppression, "max_suppression")  # 0.05, "5%" or "0.05"
    progress = flag(progress, "progress", optional=True)
    digest = None
    if is_dask(frame):
        require_columns(frame)
    else:
        require_data(frame)
        _rows_for(k, len(frame))  # before the election, whose errors would hide this one
    if hierarchies is not None and not isinstance(hierarchies, Mapping):
        raise InvalidParameterError(
            f"hierarchies must map columns to hierarchies, such as "
            f"{{'age': 'intervals'}}, got {type(hierarchies).__name__} {hierarchies!r}"
        )
    if qid is None:
        found = _identifiers(frame, columns_except(frame.columns, sensitive), identifiers)
        read = None  # the columns holding a value, less the identifiers (on a Dask frame)
    else:
        qid = resolve_columns(frame, qid)
        sensitive_outside(qid, sensitive)
        outside = [c for c in columns_except(frame.columns, sensitive) if c not in qid]
        found = _identifiers(frame, outside, identifiers)
        read = [*qid, *([sensitive] if sensitive is not None else [])]
    local, weights = frame, None
    if is_dask(frame):  # decided on the digest: every figure weighs the rows of a combination
        if read is None:
            read = [c for c in candidate_columns(frame, None) if c not in _columns(found)]
            if not read:  # after the frame's own errors, as on pandas
                _rows_for(k, dask_backend().row_count(frame))
                raise _nothing_left()
        given = hierarchies or {}
        sources = {c: given[c] if c in given else _claimed(c) for c in read}
        digest = dask_backend().digest(frame, [*read, *read_beside(frame, sources)])
        local, weights = digest.frame, digest.counts
        _rows_for(k, digest.n_rows)
    request = _Request(
        local,
        k,
        models,
        hierarchies or {},
        algorithm,
        max_suppression,
        metric,
        sensitive,
        progress,
        weights=weights,
    )
    if qid is None:
        decision = _zero_configuration(request, _columns(found))
    else:
        decision = _decide(request, qid, {})
    report = decision.report
    assert isinstance(report, AnonymizationReport)
    if report.classes == 1 and report.search.get("lattice_size", 2) > 1:
        warn(
            f"the result is one class: every kept row is alike on {report.qid} (levels "
            f"{report.levels or 'none'}), so they tell nothing apart; allow some suppression "
            f"(max_suppression=, --max-suppression), lower k, or choose the quasi-identifier "
            f"(qid=, --qid)",
            OneClassWarning,
        )
    treated = {"drop": "dropped", "hash": "hashed", "keep": "kept"}[identifiers]
    seconds = round(time.perf_counter() - started, 4)
    keys = column_keys([f.column for f in found])
    return replace(
        decision,
        digest=digest,
        identifiers=tuple(keys),
        treatment=identifiers,
        report=replace(
            report,
            identifiers={key: treated for key in keys.values()},
            search={**report.search, "seconds": seconds},
        ),
    )


def kanon(
    frame: pd.DataFrame,
    k: int,
    *,
    suppress: str = "mask",
    salt: bytes | str | None = None,
    target: Hashable | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Return a k-anonymous copy of ``frame``.

    :func:`anonymize` decides the transformation with the same ``k`` and ``**options``
    (by default the optimal full-domain generalization with suppression [1]_, searched on the
    frequency set [2]_; Mondrian partitions [3]_ with ``algo="mondrian"``), then it is
    written to a copy of the frame: same index and column order, less the direct identifier
    columns it drops; with ``suppress="drop"`` the suppressed rows are left out.
    Every quasi-identifier (QID) column holds the labels it is generalized to; suppressed rows
    hold :data:`~pandas_anon.detect.exposure.SUPPRESSED` (``*``) in every QID column, which
    the gate and the pandera checks recognise (such a row is in no class). The input is not
    modified. The report travels with the output: ``out.anon.report()``.

    With nothing but ``k`` (zero configuration) every released column may identify: direct
    identifiers are dropped, and every other column is k-anonymous together in the output,
    by the method leaving the most cells unchanged (see :func:`anonymize`), so that
    ``pandas-anon check --k K`` passes it.

    Parameters
    ----------
    frame : pandas.DataFrame or dask.dataframe.DataFrame
        The table to anonymize.
    k : int
        The smallest class size: a whole number of at least 1 and at most the number of rows.
    suppress : {"mask", "drop"}, default "mask"
        ``"mask"``: the suppressed rows keep their place, with ``*`` in every QID column;
        ``"drop"``: they are left out.
    salt : bytes or str, optional
        The key of ``identifiers="hash"``. Default None (or empty): a random one, never
        stored, so the tokens of two calls cannot be linked; give one to get the same tokens
        again: a secret of at least 16 bytes, such as ``secrets.token_hex(16)`` (a shorter
        one is refused: it could be found by trying keys).
    target : hashable, optional
        A column to predict from the others: the report's ``task`` then gives a
        classifier's cross-validated accuracy on the release beside the original's and the
        majority class's (:mod:`~pandas_anon.anonymization.task_utility`, as
        :func:`~pandas_anon.compare` measures it; needs scikit-learn, the ``ml`` extra). It
        must be outside the quasi-identifier (give it as ``sensitive``, or a ``qid`` without
        it), on a pandas frame, with ``suppress="mask"``. Default None: not measured.
    **options
        The options of :func:`anonymize`, passed to it unchanged (details there):

        - ``qid`` (sequence of hashable, default None): the quasi-identifier columns; None
          protects every released column together (zero configuration).
        - ``hierarchies`` (mapping, default None): ``{column: hierarchy}``, each a
          ``Hierarchy``, a registered name (``"it.comune"``) or a builder; a QID column
          left out gets the registered hierarchy claiming it, else one built from its data.
        - ``algo`` (str or algorithm object, default None: ``"ola"`` with ``qid``, else
          the method keeping the most): ``"ola"``,
          ``"incognito"``, ``"samarati"``, ``"datafly"``, ``"exhaustive"``,
          ``"mondrian"``, ``"local"``, ``"tree"``, a plugin's name, or an object such as
          ``pandas_anon.Mondrian(relaxed=True)``.
        - ``max_suppression`` (float or str, default 0.0): the largest share of the rows
          that may be suppressed, from 0 to 1 (``0.05``, ``"5%"``).
        - ``metric`` (``"precision"``, ``"dm"`` or callable, default ``"precision"``): what
          the search minimizes.
        - ``l`` (int or ``LDiversity``, default None): l-diversity of ``sensitive``.
        - ``t`` (float, str or ``TCloseness``, default None): t-closeness of ``sensitive``.
        - ``sensitive`` (hashable, default None): the column ``l`` and ``t`` read, outside
          the QID.
        - ``identifiers`` (``"drop"``, ``"hash"`` or ``"keep"``, default ``"drop"``): what
          becomes of the direct identifier columns outside the QID.
        - ``progress`` (bool, default None): a progress line on stderr for long searches;
          None shows it only when stderr is a terminal.

    Returns
    -------
    pandas.DataFrame or dask.dataframe.DataFrame
        The k-anonymous copy, its report attached (``out.anon.report()``, an
        :class:`~pandas_anon.anonymization.reports.AnonymizationReport`: the levels, the rows
        suppressed and modified, the classes, the smallest class, information loss, risk,
        and each choice made). On a Dask frame: a lazy Dask frame, each partition's rows
        written as their combination is decided, and its report computed.

    Raises
    ------
    InvalidParameterError
        When ``suppress`` is neither ``"mask"`` nor ``"drop"``, and for every argument
        :func:`anonymize` refuses (``k``, ``algo``, ``max_suppression``, ``metric``, ``l``,
        ``t``, ``identifiers``, ``hierarchies``).
    InvalidQIDError, ColumnNotFoundError, DuplicateColumnsError
        When ``qid`` or ``sensitive`` do not name columns of the frame once each, as in
        :func:`anonymize`.
    EmptyDataError, AllMissingColumnError, UnhashableValueError
        When the frame has nothing to anonymize, or a column read cannot tell rows apart,
        as in :func:`anonymize`.
    HierarchyError, UnknownNameError
        When a hierarchy given does not fit its column or is not registered.
    InfeasibleError
        When no transformation satisfies the privacy models within ``max_suppression``.

    Warns
    -----
    OneClassWarning, IdentifierWarning, HierarchyFallbackWarning
        As :func:`anonymize`: one class left, identifiers kept, a claiming hierarchy
        replaced.

    See Also
    --------
    anonymize : The decision alone, without writing a row.
    pandas_anon.generalize : Generalize chosen columns, on every row or on chosen rows.
    pandas_anon.ke_anon : (k, ε)-anonymity: k-anonymity plus noise on numeric columns.
    pandas_anon.compare : Several algorithms on one table, side by side.

    References
    ----------
    .. [1] Saroha, "Survey of k-Anonymity", 2014, sections 2.2 to 2.5.
    .. [2] K. El Emam, F. K. Dankar et al., "A Globally Optimal k-Anonymity Method for the
       De-Identification of Health Data", JAMIA, 2009, section 3.
    .. [3] K. LeFevre, D. J. DeWitt and R. Ramakrishnan, "Mondrian Multidimensional
       k-Anonymity", ICDE 2006, section 4.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "age": [21, 22, 23, 24, 25, 26, 27, 88],
    ...     "sex": ["F", "M", "F", "M", "F", "M", "F", "M"],
    ... })
    >>> decades = Hierarchy(df["age"], [["20-29"] * 7 + ["80-89"]])
    >>> out = pandas_anon.kanon(
    ...     df, 2, qid=["age", "sex"], hierarchies={"age": decades}, max_suppression=0.2
    ... )
    >>> out["age"].tolist()
    ['20-29', '20-29', '20-29', '20-29', '20-29', '20-29', '20-29', '*']
    >>> report = out.anon.report()
    >>> report.levels, report.suppressed, report.k_reached
    ({'age': 1, 'sex': 0}, 1, 3)

    The suppressed row left out instead of masked:

    >>> len(pandas_anon.kanon(
    ...     df, 2, qid=["age", "sex"], hierarchies={"age": decades}, max_suppression="20%",
    ...     suppress="drop",
    ... ))
    7

    Zero configuration: the ``id`` column, unique on every row, is dropped, and the other
    columns are 2-anonymous together, by the method leaving the most cells unchanged (here
    the full-domain search, tied with the others on its cells and classes, first among
    them):

    >>> people = pd.DataFrame({
    ...     "id": [11, 12, 13, 14, 15, 16],
    ...     "age": [30, 30, 40, 40, 50, 50],
    ...     "sex": ["F", "M", "F", "M", "F", "M"],
    ... })
    >>> out = people.anon.kanon(2)
    >>> list(out.columns)
    ['age', 'sex']
    >>> report = out.anon.report()
    >>> report.identifiers, report.algorithm, report.levels, report.exposure["passes"]
    ({'id': 'dropped'}, 'ola', {'age': 0, 'sex': 1}, True)
    >>> out["sex"].unique().tolist()
    ['*']
    """
    known_options(options, "kanon", [anonymize])
    one_of(suppress, "suppress", ("mask", "drop"))
    salt_key(salt)  # a bad salt refused before the search, not after it
    if target is not None:
        _task_target(frame, target, suppress)
    decision = anonymize(frame, k, **options)
    if target is not None and target in decision.qid:
        raise InvalidParameterError(
            f"target={target!r} is in the quasi-identifier: the task predicts it from the "
            f"other released columns; give it as sensitive={target!r}, or a qid without it"
        )
    out = decision.apply(frame, suppress=suppress, salt=salt)
    if target is None:
        return out
    found = task_utility(frame, out, target)
    report = cast(AnonymizationReport, report_of(out))
    return attach(out, replace(report, task=found.to_dict()))


def _task_target(frame: Any, target: Hashable, suppress: str) -> None:
    """Refuse a ``target=`` the task utility cannot measure, before the search."""
    if is_dask(frame):
        raise InvalidParameterError(
            "target= trains a classifier on the release in memory: compute the Dask frame "
            "first (ddf.compute()), or measure a sample of it with pandas_anon.compare"
        )
    resolve_columns(frame, [target])
    if suppress != "mask":
        raise InvalidParameterError(
            "target= (--target) compares the release with the original row for row: keep "
            "the suppressed rows masked (suppress='mask', the default; no --drop-suppressed), "
            "then drop the rows written '*' in every quasi-identifier column"
        )
    scikit_learn()  # said before the search, not after


def _nothing_left() -> InvalidQIDError:
    """The error of zero configuration when no column is left to anonymize."""
    return InvalidQIDError(
        "no column is left to anonymize: every column holding a value is the sensitive "
        "column or a direct identifier; pass qid= to choose the quasi-identifier"
    )


def _claimed(column: Hashable) -> str | None:
    """The hierarchy claiming ``column``, if one does (several: none here, the search says
    so when it builds the column's hierarchy)."""
    try:
        return claimed_hierarchy(column)
    except HierarchyError:
        return None


def _rows_for(k: int, rows: int) -> None:
    """Refuse a ``k`` above the rows of the frame."""
    if k > rows:
        raise InvalidParameterError(f"k={k} exceeds the {rows:,} rows of the frame")


def _columns(found: Sequence[DirectIdentifier]) -> list[Hashable]:
    """The columns of direct identifiers found."""
    return [f.column for f in found]


def _algorithm(algo: object, *, choose: bool) -> Algorithm | None:
    """The algorithm ``algo=`` names or is (such as ``Mondrian(relaxed=True)``); None
    (zero configuration chooses, ``choose``) or ``"ola"`` when it is None."""
    if algo is None:
        return None if choose else get_algorithm("ola")
    if isinstance(algo, str):
        return get_algorithm(algo)
    if not isinstance(algo, Algorithm):
        raise InvalidParameterError(
            f"algo must be an algorithm's name (such as 'ola' or 'mondrian') or an algorithm "
            f"object (such as pandas_anon.Mondrian(relaxed=True)), got {type(algo).__name__} "
            f"{algo!r}"
        )
    return algo


def _identifiers(
    frame: pd.DataFrame, columns: Sequence[Hashable], treatment: str
) -> tuple[DirectIdentifier, ...]:
    """The direct identifier columns among ``columns``; kept ones are warned about."""
    found = direct_identifiers(frame, columns)  # an empty column shares its one value
    if found and treatment == "keep":
        warn(
            f"releasing {plural(len(found), 'direct identifier column')} as asked "
            f"(identifiers='keep'): {', '.join(f.describe() for f in found)}; each identifies "
            f"people on its own, and pandas-anon check fails the file unless its configuration "
            f"allows the column (allow_identifiers)",
            IdentifierWarning,
        )
    return found


def _decide(
    request: _Request, qid: tuple[Hashable, ...], choices: dict[str, str]
) -> Transformation:
    """Run the algorithm on the frequency set of ``qid`` and report what it decided."""
    assert request.algo is not None
    problem = _problem(request, qid, choices, getattr(request.algo, "default_hierarchies", True))
    decided = request.algo.decide(problem)
    return replace(decided, report=_report(decided, problem, choices))


def _problem(
    request: _Request,
    qid: tuple[Hashable, ...],
    choices: dict[str, str],
    build: bool,
    tabulation: Tabulation | None = None,
) -> Problem:
    """The problem an algorithm is given: the frequency set of ``qid`` (``tabulation`` when
    read already) and its hierarchies (their choices written into ``choices``; with
    ``build``, ``auto``'s for a column no registered hierarchy claims, else none)."""
    frame = request.frame
    if tabulation is None:
        columns = [*qid, request.sensitive] if request.sensitive is not None else list(qid)
        tabulation = tabulate(frame, columns, weights=request.weights)  # first: an
        # all-missing column is refused alike
    chosen = _hierarchies(
        frame,
        qid,
        request.hierarchies,
        choices,
        request.built,
        build=build,
    )
    return Problem(
        tabulation=tabulation,
        qid=qid,
        hierarchies=chosen,
        models=tuple(request.models),
        k=request.k,
        max_suppression=request.max_suppression,
        metric=request.metric,
        sensitive=request.sensitive,
        progress=request.progress,
    )


def _zero_configuration(request: _Request, identifiers: Sequence[Hashable]) -> Transformation:
    """k-anonymize every released column together (the columns holding a value, less the
    sensitive column and the direct identifiers), with the method asked for or the one
    keeping the most (:mod:`~pandas_anon.anonymization.method_choice`), and measure the
    gate's rule on the release."""
    frame, k = request.frame, request.k
    candidates = [
        c
        for c in columns_except(candidate_columns(frame, None), request.sensitive)
        if c not in identifiers
    ]
    if not candidates:
        raise _nothing_left()
    outside = [c for c in request.hierarchies if c not in candidates]
    if outside:
        raise InvalidParameterError(
            f"hierarchies given for columns that are not candidates for the quasi-identifier "
            f"(not in the frame, empty, the sensitive column or direct identifiers): "
            f"{outside!r}"
        )
    qid = tuple(candidates)
    released = frame[candidates]
    choices = {
        "qid": (
            f"every released column ({plural(len(qid), 'column')}: all but the sensitive "
            f"column and the direct identifiers): the release is {k}-anonymous on all of "
            f"them together"
        )
    }
    if request.algo is not None:
        decision = _decide(request, qid, choices)
        candidates_tried = None
    else:
        columns = [*qid, request.sensitive] if request.sensitive is not None else list(qid)
        tabulation = tabulate(frame, columns, weights=request.weights)
        own: dict[str, dict[str, str]] = {}

        def problem_for(name: str, algorithm: Algorithm, hierarchies: bool) -> Problem:
            own[name] = dict(choices)
            return _problem(request, qid, own[name], hierarchies, tabulation)

        choice = choose(problem_for, released, request.weights)
        choices = {**own[choice.name], "algorithm": choice.reason}
        decision = replace(
            choice.decision, report=_report(choice.decision, choice.problem, choices)
        )
        candidates_tried = choice.candidates
    found = scan(
        decision.write(released, weights=request.weights).frame,
        k=max(k, 2),
        max_size=AUTO_QID_SIZE,
        weights=request.weights,
    )
    worst = found.election
    exposure = {
        "columns": [str(c) for c in found.qid],
        "k": k,
        "rows_below_k": worst.at_risk if worst is not None and k > 1 else 0,
        "max_size": AUTO_QID_SIZE,
    }
    exposure["passes"] = exposure["rows_below_k"] == 0 and not found.identifiers
    report = cast(AnonymizationReport, decision.report)
    return replace(decision, report=replace(report, exposure=exposure, candidates=candidates_tried))


def _models(
    k: int,
    l: float | LDiversity | None,  # noqa: E741  (the model's name)
    t: float | str | TCloseness | None,
    sensitive: Hashable | None,
    frame: pd.DataFrame,
) -> list[PrivacyModel]:
    """The privacy models asked for: k-anonymity, then l-diversity and t-closeness of
    ``sensitive``."""
    models: list[PrivacyModel] = [KAnonymity(k)]
    if (l is not None or t is not None) and sensitive is None:
        given = f"l={l!r}" if l is not None else f"t={t!r}"
        raise InvalidParameterError(
            f"{given} needs sensitive=<column>: l-diversity and "
            f"t-closeness protect the values of a sensitive column"
        )
    if sensitive is not None:
        resolve_columns(frame, [sensitive])
        if l is not None:
            models.append(l if isinstance(l, LDiversity) else LDiversity(l))
        if t is not None:
            models.append(
                t
                if isinstance(t, TCloseness)
                else TCloseness(
                    fraction(t, "t"), ordered=pd.api.types.is_numeric_dtype(frame[sensitive])
                )
            )
    return models


def _hierarchies(
    frame: pd.DataFrame,
    qid: Sequence[Hashable],
    given: Mapping[Hashable, HierarchyLike],
    choices: dict[str, str],
    built: dict | None = None,
    *,
    build: bool = True,
) -> dict[Hashable, Hierarchy]:
    """The given hierarchies; for the other columns a registered one that claims the column,
    else (with ``build``) one built from the data (intervals, dates or suppression:
    ``auto``), taken from ``built`` when an earlier search found it (:func:`_by_default`).
    Without ``build`` a column with neither has no hierarchy."""
    built = {} if built is None else built
    unknown = [c for c in given if c not in qid]
    if unknown:
        raise InvalidParameterError(f"hierarchies given for columns outside the qid: {unknown!r}")
    chosen: dict[Hashable, Hierarchy] = {}
    keys = column_keys(qid)
    for column in qid:
        if isinstance(given.get(column), Hierarchy):  # as it is: no column read
            chosen[column] = cast(Hierarchy, given[column])
        elif column in given:
            chosen[column] = hierarchy_for(frame[column], given[column], frame)
        else:
            hierarchy, choices[f"hierarchy {keys[column]}"] = _by_default(
                frame, column, built, build=build
            )
            if hierarchy is not None:
                chosen[column] = hierarchy
    return chosen


def _by_default(
    frame: pd.DataFrame, column: Hashable, built: dict, *, build: bool = True
) -> tuple[Hierarchy | None, str]:
    """The registered hierarchy claiming the column if it covers the column, else ``auto``
    (with ``build``; without it, no hierarchy: the algorithm cuts the column by its values),
    with a :class:`HierarchyFallbackWarning` (once) when a claiming one falls short; and the
    choice as the report states it. ``built`` keeps what was found for the next search. The
    warning counts the values left out, never quotes them: only a hierarchy the user named
    may list them (its own error)."""
    series = frame[column]
    if (column, "claimed") not in built:
        built[column, "claimed"] = _claimed_cover(series, frame)
    claimed, hierarchy, problem = built[column, "claimed"]
    if hierarchy is not None:
        return hierarchy, hierarchy.described(claimed)
    if build and (column, "auto") not in built:
        built[column, "auto"] = hierarchy_for(series, auto)
    made = built[column, "auto"] if build else None
    name = (made.name or "auto") if made is not None else "none (written by value)"
    if claimed is None:
        return made, name
    if (column, "warned") not in built:
        built[column, "warned"] = True
        instead = (
            f"a hierarchy built from its data instead ({name})" if build else "its values instead"
        )
        warn(
            f"hierarchy {claimed!r} claims column {series.name!r} but {problem}; the column is "
            f"generalized by {instead}. To use "
            f"{claimed!r}, pass hierarchies={{{series.name!r}: {claimed!r}}}: its error then "
            f"says which values to clean or map",
            HierarchyFallbackWarning,
        )
    return made, f"{name} (fallback: {claimed} {problem})"


def _claimed_cover(
    series: pd.Series, frame: pd.DataFrame
) -> tuple[str | None, Hierarchy | None, str | None]:
    """The registered hierarchy claiming ``series``: its name, the hierarchy when it covers
    the column (else None, and why not)."""
    claimed = claimed_hierarchy(series.name)
    if claimed is None:
        return None, None, None
    try:
        hierarchy = hierarchy_for(series, claimed, frame)
        recode(series, hierarchy, 0)  # a HierarchyError if it misses a value of the column
        return claimed, hierarchy, None
    except HierarchyError as error:
        problem = (
            "cannot be built for the column"
            if error.unmatched is None
            else f"does not cover {plural(error.unmatched, 'value')} of the column"
        )
        return claimed, None, problem


def _report(
    transformation: Transformation, problem: Problem, choices: dict[str, str]
) -> AnonymizationReport:
    """What the call reports: the levels chosen, the privacy reached and the utility kept
    (:mod:`pandas_anon.anonymization.utility`, the same figures for every algorithm)."""
    utility = measure(transformation, problem.k)
    keys = column_keys(problem.qid)
    recodings = {c: transformation.recodings[c] for c in problem.qid}
    counts = transformation.tabulation.frequencies.counts
    kept = ~transformation.suppressed
    written = kept if kept.any() else np.ones_like(kept)  # every row suppressed: all of them
    written_levels = {  # each combination's level, on the rows written, once per column
        c: r.levels[:1] if r.by_value is not None else r.levels[written]  # one level: its own
        for c, r in recodings.items()
        if r.levels is not None and len(r.levels)
    }
    levels = {  # the level of columns written at one level of a hierarchy on the kept rows
        keys[c]: int(at[0]) for c, at in written_levels.items() if (at == at[0]).all()
    }
    rows_by_level = {  # columns written at several levels (local recoding): rows per level
        keys[c]: {
            int(level): int(counts[kept & (r.levels == level)].sum())
            for level in np.unique(r.levels[kept])
        }
        for c, r in recodings.items()
        if r.levels is not None and len(r.levels) and keys[c] not in levels
    }
    generalized = sum(
        bool((r.levels > 0).any()) if r.levels is not None else bool((r.codes != KEEP).any())
        for r in recodings.values()
    )
    return AnonymizationReport(
        algorithm=transformation.method,
        qid=[keys[c] for c in problem.qid],
        levels=levels,
        rows_by_level=rows_by_level,
        hierarchies={
            keys[c]: problem.hierarchies[c].described()
            if c in problem.hierarchies
            else "none (written by value)"
            for c in problem.qid
        },
        models=[str(m) for m in problem.models],
        rows=utility.rows,
        suppressed=utility.suppressed,
        max_suppression=problem.max_suppression,
        classes=utility.classes,
        k_reached=utility.smallest,
        metrics=utility.metrics(),
        ncp={keys[c]: value for c, value in utility.ncp.items()},
        risk=utility.risk(),
        search={
            **transformation.search,
            "seconds": 0.0,
            "generalized_columns": generalized,
        },
        choices=choices,
        privacy=dict(transformation.privacy),
    )
