"""The reports of the methods that change a table: one family, one way to travel with a frame.

Every anonymizing method returns its output with a report attached (``out.anon.report()``):
what it changed (rows modified, suppressed, removed), the privacy reached and the utility
kept. Each kind of report is a :class:`Report`: a frozen dataclass that converts to a
JSON-able dict (``to_dict``, with its ``kind``) and back (``from_dict``), and travels in the
output's ``DataFrame.attrs`` (:func:`attach`, :func:`report_of`). Reports name columns, levels
and counts, never the values of rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from pandas_anon import formatting as report
from pandas_anon.anonymization.utility import unchanged_share
from pandas_anon.engine.backends import is_dask
from pandas_anon.errors import AnonError

#: Key of the report a transformed frame carries in ``DataFrame.attrs``.
REPORT_KEY = "pandas_anon"


class Report:
    """Base of the reports: a dataclass with a ``kind``, converted to and from a dict."""

    kind: ClassVar[str]
    _kinds: ClassVar[dict[str, type[Report]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Report._kinds[cls.kind] = cls

    def to_dict(self) -> dict:
        """The report as a JSON-able dict, with its ``kind``."""
        fields = dataclasses.fields(self)  # type: ignore[arg-type]  # subclasses are dataclasses
        return {"kind": self.kind, **{f.name: getattr(self, f.name) for f in fields}}

    def after_writing(self, modified: int, changed: Mapping[Hashable, int]) -> Report:
        """The report once the output is written: ``modified`` rows in all, ``changed``
        rows per quasi-identifier column (in the order of the transformation's columns)."""
        return dataclasses.replace(self, modified=modified)  # type: ignore[type-var]

    @classmethod
    def from_dict(cls, payload: dict) -> Report:
        """The report of a dict made by :meth:`to_dict` (of this kind, or of any kind when
        called on :class:`Report`)."""
        kind = Report._kinds.get(str(payload.get("kind", cls.__dict__.get("kind"))))
        if kind is None or (cls is not Report and kind is not cls):
            raise AnonError(f"not a {cls.__name__}: kind {payload.get('kind')!r}")
        return kind(**{k: v for k, v in payload.items() if k != "kind"})


def column_keys(columns: Sequence[Hashable]) -> dict[Hashable, str]:
    """The name of each column in a report: ``str(label)``, or ``repr(label)`` for labels
    sharing their ``str`` with another column (``0`` and ``"0"`` become ``"0"`` and
    ``"'0'"``), so each column keeps its own key in the report's dicts and in JSON."""
    texts = [str(c) for c in columns]
    keys = [text if texts.count(text) == 1 else repr(c) for c, text in zip(columns, texts)]
    if len(set(keys)) < len(keys):  # a repr equal to another label's str: "'0'" beside 0, "0"
        keys = [repr(c) for c in columns]
    return dict(zip(columns, keys))


@dataclass(frozen=True, repr=False)
class GeneralizationReport(Report):
    """What a generalization changed, attached to its output.

    What a generalization changed: rows selected (touched), rows whose value changed in a
    generalized column (modified), rows removed, and each column's hierarchy and level.
    ``touched`` and ``modified`` differ when a selected row's label equals its value.
    Selecting the singletons only is the seed paper's local recoding [1]_. The report
    travels in the output's ``DataFrame.attrs`` (``out.anon.report()`` reads it back), prints
    as tables, converts to a JSON-able dict with ``to_dict()`` (its ``kind`` is
    ``"generalize"``) and back with ``from_dict``; it names columns, levels and counts, never
    the values of rows.

    Attributes
    ----------
    rows : int
        Rows of the frame.
    selection : str
        How the rows were selected: ``"all"``, ``"singletons"`` or ``"mask"``.
    qid : list of str or None
        The ``qid`` given (its columns as text), or None.
    touched : int
        Rows selected for recoding.
    modified : int
        Rows where at least one generalized column now holds a different value.
    removed : int
        Rows removed: always 0, since ``generalize`` never removes a row.
    columns : dict of str to dict
        Per generalized column: its ``hierarchy`` (the name a report gives it), its
        ``level`` and the rows whose value changed (``modified``).
    kind : str
        ``"generalize"``, the key of the kind in ``to_dict()`` (a class attribute).

    See Also
    --------
    pandas_anon.generalize : The function whose output carries it.
    AnonymizationReport : The report of a k-anonymization.

    References
    ----------
    .. [1] M. Pastore, M. A. Pellegrino and V. Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020, section 3.2.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "town": ["Aosta", "Aosta", "Ivrea", "Turin", "Turin"],
    ...     "sex": ["F", "F", "M", "M", "F"],
    ... })
    >>> towns = Hierarchy(["Aosta", "Ivrea", "Turin"], [["AO", "TO", "TO"]], name="towns")
    >>> out = pandas_anon.generalize(
    ...     df, {"town": towns}, rows="singletons", qid=["town", "sex"]
    ... )
    >>> report = out.anon.report()
    >>> report.rows, report.selection, report.touched, report.modified, report.removed
    (5, 'singletons', 3, 3, 0)
    >>> report.columns
    {'town': {'hierarchy': 'towns', 'level': 1, 'modified': 3}}
    """

    rows: int
    selection: str
    qid: list[str] | None
    touched: int
    modified: int
    removed: int
    columns: dict[str, dict]

    kind: ClassVar[str] = "generalize"

    def after_writing(self, modified: int, changed: Mapping[Hashable, int]) -> Report:
        """Rows modified in all and in each column (``changed`` in the order of ``columns``)."""
        columns = {
            key: {**detail, "modified": count}
            for (key, detail), count in zip(self.columns.items(), changed.values(), strict=True)
        }
        return dataclasses.replace(self, modified=modified, columns=columns)

    def __repr__(self) -> str:
        table = pd.DataFrame([{"column": c, **detail} for c, detail in self.columns.items()])
        on_qid = self.qid and self.selection == "singletons"
        selection = self.selection + (f" on {report.columns(self.qid or [])}" if on_qid else "")
        return report.render(
            "Generalization",
            [
                ("rows", report.count(self.rows)),
                ("rows selected", f"{selection}: {report.count(self.touched)}"),
                ("rows modified", report.count(self.modified)),
                ("rows removed", report.count(self.removed)),
            ],
            ("Columns", table),
        )


@dataclass(frozen=True, repr=False)
class AnonymizationReport(Report):
    """What a k-anonymization chose and what it cost, attached to its output.

    What a k-anonymization chose and what it cost: the node (a level per column), rows
    suppressed and modified, the privacy reached, information loss and search statistics.
    The figures are measured by :mod:`pandas_anon.anonymization.utility`, the same for every
    algorithm: precision [1]_, discernibility [2]_, C_avg [3]_, the normalized and global
    certainty penalties [4]_ [5]_, and the prosecutor risk left [6]_. Each column is named by
    ``str(label)``, or by ``repr(label)`` when two columns of the QID share their ``str``.
    The report travels in the output's ``DataFrame.attrs`` (``out.anon.report()`` reads it
    back), prints as tables, converts to a JSON-able dict with ``to_dict()`` (its ``kind`` is
    ``"kanon"``) and back with ``from_dict``, and ``plot()`` draws each quasi-identifier's
    cost; it names columns, levels and counts, never the values of rows.

    Attributes
    ----------
    algorithm : str
        The algorithm (``"ola"``, ``"mondrian"``, ``"local"``...).
    qid : list of str
        The quasi-identifier, in the frame's column order.
    levels : dict of str to int
        The level of each column written at one level on the kept rows.
    hierarchies : dict of str to str
        The name of each QID column's hierarchy (``"none (written by value)"`` without one).
    models : list of str
        The privacy models, as text (``"5-anonymity"``).
    rows : int
        Rows of the input.
    suppressed : int
        Rows suppressed.
    max_suppression : float
        The limit on suppressed rows, a fraction of the rows.
    classes : int
        Equivalence classes kept.
    k_reached : int
        The size of the smallest kept class.
    metrics : dict of str to float
        ``precision`` (only when every column is written along a hierarchy), ``dm``,
        ``c_avg``, ``gcp`` (the global certainty penalty), ``query_error`` (the mean
        relative error of the 1- and 2-way count queries over the quasi-identifier [7]_,
        estimated from the release) with ``queries`` (how many), and, once the output is
        written, ``unchanged`` (the share of the quasi-identifier cells released as read:
        one less the cells of ``changed`` over rows times quasi-identifiers). Definitions:
        :mod:`pandas_anon.anonymization.utility`.
    risk : dict of str to float
        ``prosecutor_max``, ``prosecutor_avg`` and ``sample_uniques``, after anonymization.
    search : dict of str to float
        The search's statistics (``lattice_size`` and ``evaluated`` for the lattice
        searches, the algorithm's own counters otherwise), ``seconds`` (the whole decision)
        and ``generalized_columns``.
    choices : dict of str to str
        What zero configuration chose (``qid``, ``hierarchy <column>``); empty when
        everything was given.
    modified : int or None, default None
        Rows modified, filled in when the output is written (None in the report of
        :func:`pandas_anon.anonymize`'s decision).
    privacy : dict of str to float
        The level each privacy model reaches on the kept classes: ``k`` (the smallest
        class), ``distinct l``, ``entropy l``, ``recursive c (l=...)`` or ``t``.
    identifiers : dict of str to str
        Direct identifier columns found outside the QID and what became of each
        (``"dropped"``, ``"hashed"`` or ``"kept"``), never their values.
    rows_by_level : dict of str to dict of int to int
        The columns written at several levels (local recoding): the kept rows at each level.
    changed : dict of str to int
        Rows whose value changed, per quasi-identifier (filled in when the output is
        written).
    ncp : dict of str to float
        Each quasi-identifier's normalized certainty penalty, the mean over its cells
        (``metrics["gcp"]`` is their mean).
    exposure : dict or None, default None
        The gate's rule measured on the released columns (zero configuration only): the
        most exposed column set (``columns``), ``k``, its rows in classes below k
        (``rows_below_k``), ``max_size`` and whether it ``passes``.
    task : dict or None, default None
        A classifier's cross-validated accuracy on the output, the original and the
        majority class, when asked (``compare(..., target=)``).
    candidates : dict or None, default None
        Zero configuration's choice of method (:mod:`pandas_anon.anonymization.method_choice`,
        when ``algo`` is not given): per method, its share of the released cells left
        ``unchanged``, the rows ``suppressed``, its ``classes`` and ``seconds``; or
        ``skipped`` and why.
    kind : str
        ``"kanon"``, the key of the kind in ``to_dict()`` (a class attribute).

    See Also
    --------
    pandas_anon.kanon : The function whose output carries it.
    pandas_anon.anonymize : The decision alone, its ``report`` without ``modified``.
    pandas_anon.reinforce : Privacy reinforcement, whose output carries one too.
    pandas_anon.compare : Several methods' reports side by side.

    References
    ----------
    .. [1] L. Sweeney (2002), "Achieving k-Anonymity Privacy Protection Using
       Generalization and Suppression", section 4.
    .. [2] R. J. Bayardo and R. Agrawal (2005), "Data Privacy through Optimal
       k-Anonymization", ICDE 2005.
    .. [3] K. LeFevre, D. J. DeWitt and R. Ramakrishnan (2006), "Mondrian Multidimensional
       k-Anonymity", ICDE 2006.
    .. [4] J. Xu et al. (2006), "Utility-Based Anonymization Using Local Recoding", KDD 2006.
    .. [5] G. Ghinita, P. Karras, P. Kalnis and N. Mamoulis (2007), "Fast Data Anonymization
       with Low Information Loss", VLDB 2007.
    .. [6] K. El Emam et al. (2009), "A Globally Optimal k-Anonymity Method for the
       De-Identification of Health Data", section 2.
    .. [7] K. LeFevre, D. J. DeWitt and R. Ramakrishnan (2006), "Mondrian
       Multidimensional k-Anonymity", ICDE 2006, section "Experimental Evaluation" (a
       workload of count queries, values uniform within each region); X. Xiao and Y. Tao
       (2006), "Anatomy: Simple and Effective Privacy Preservation", VLDB 2006, section 1.
    .. [8] J. Eicher, R. Bild, H. Spengler, K. A. Kuhn and F. Prasser (2020), "A
       Comprehensive Tool for Creating and Evaluating Privacy-Preserving Biomedical
       Prediction Models", BMC Medical Informatics and Decision Making 20, section
       "Methods" (ARX's classification utility: the output's model against the
       original's and the majority class's).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "age": [21, 21, 22, 22, 35, 36, 37, 38],
    ...     "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
    ... })
    >>> decades = Hierarchy([21, 22, 35, 36, 37, 38], [["20-29"] * 2 + ["30-39"] * 4])
    >>> out = pandas_anon.kanon(df, 2, qid=["age", "sex"], hierarchies={"age": decades})
    >>> report = out.anon.report()
    >>> report.algorithm, report.models, report.levels
    ('ola', ['2-anonymity'], {'age': 1, 'sex': 0})
    >>> report.suppressed, report.classes, report.k_reached, report.modified, report.changed
    (0, 4, 2, 8, {'age': 8, 'sex': 0})

    Half the QID cells are unchanged (every age, no sex), and the 14 counts of one value or
    of a pair of values, estimated with each decade's rows spread evenly over its ages, err
    by 3/14 on average:

    >>> metrics = report.metrics
    >>> metrics["unchanged"], metrics["queries"], round(metrics["query_error"], 4)
    (0.5, 14, 0.2143)

    Local recoding writes ``age`` at two levels:

    >>> local = pandas_anon.kanon(
    ...     df, 2, qid=["age", "sex"], hierarchies={"age": decades}, algo="local"
    ... )
    >>> local.anon.report().rows_by_level
    {'age': {0: 4, 1: 4}}
    """

    algorithm: str
    qid: list[str]
    levels: dict[str, int]
    hierarchies: dict[str, str]
    models: list[str]
    rows: int
    suppressed: int
    max_suppression: float
    classes: int
    k_reached: int
    metrics: dict[str, float]
    risk: dict[str, float]
    search: dict[str, float]
    choices: dict[str, str]
    modified: int | None = None
    privacy: dict[str, float] = field(default_factory=dict)  # level reached, per model
    #: direct identifier columns found outside the QID and what became of each
    #: ("dropped", "hashed" or "kept"), never their values
    identifiers: dict[str, str] = field(default_factory=dict)
    #: the columns written at several levels (local recoding): the kept rows at each level
    rows_by_level: dict[str, dict[int, int]] = field(default_factory=dict)
    #: rows whose value changed, per quasi-identifier (filled in when the output is written)
    changed: dict[str, int] = field(default_factory=dict)
    #: each quasi-identifier's normalized certainty penalty (Xu et al. 2006), the mean over
    #: its cells (``metrics["gcp"]`` is their mean)
    ncp: dict[str, float] = field(default_factory=dict)
    #: the gate's rule measured on the released columns (zero configuration only):
    #: the most exposed column set, its rows in classes below k, and whether it passes
    exposure: dict | None = None
    #: a classifier's cross-validated accuracy on the output, the original and the
    #: majority class (:mod:`pandas_anon.anonymization.task_utility`), when asked
    task: dict | None = None
    #: zero configuration's choice of method: each method's figures, or why it was skipped
    candidates: dict | None = None

    kind: ClassVar[str] = "kanon"

    def after_writing(self, modified: int, changed: Mapping[Hashable, int]) -> Report:
        """Rows modified in all and in each quasi-identifier (``changed`` in QID order), and
        the share of the quasi-identifier cells left unchanged."""
        per_column = dict(zip(self.qid, (int(n) for n in changed.values()), strict=True))
        metrics = {**self.metrics, "unchanged": unchanged_share(per_column, self.rows)}
        return dataclasses.replace(self, modified=modified, changed=per_column, metrics=metrics)

    def plot(self, axes: Any = None) -> Any:
        """What the anonymization cost each quasi-identifier: its normalized certainty
        penalty (0: every value as read, 1: every value suppressed) and, beside its bar,
        its level (or levels) and the rows whose value changed; needs matplotlib
        (``pip install 'pandas-anon[plot]'``). Draws on ``axes`` (default: new ones) and
        returns them.

        Examples
        --------
        >>> out = df.anon.kanon(5, qid=["anno_nascita", "comune_residenza", "sesso"])  # doctest: +SKIP
        >>> out.anon.report().plot()  # doctest: +SKIP
        """
        from pandas_anon import plotting

        columns = list(self.qid)[::-1]  # the first column at the top
        ax = plotting.axes_for(axes, (7.2, 1.2 + 0.4 * len(columns)))
        penalties = [self.ncp.get(column, 0.0) for column in columns]
        bars = ax.barh([plotting.literal(c) for c in columns], penalties, color=plotting.REST)
        notes = []
        for column in columns:
            changed = self.changed.get(column)
            rows = f", {changed:,} rows changed" if changed is not None else ""
            word = "level" if column in self.levels else "rows by level"
            notes.append(f"{word} {self._level(column)}{rows}")
        ax.bar_label(bars, labels=notes, padding=3, fontsize="small")
        ax.set_xlim(0, 1.6)
        ax.set_xlabel("normalized certainty penalty (NCP)")
        ax.set_title(
            f"{self.algorithm}: k = {self.k_reached:,} reached, "
            f"{self.suppressed:,} of {self.rows:,} rows suppressed",
            fontsize="medium",
        )
        return ax

    def _level(self, column: str) -> str:
        """A column's level, or its rows at each level when it has several."""
        if column in self.levels:
            return str(self.levels[column])
        if column in self.rows_by_level:
            return ", ".join(  # levels read back from JSON are text: sorted as numbers
                f"{level}: {report.count(rows)}"
                for level, rows in sorted(
                    self.rows_by_level[column].items(), key=lambda item: int(item[0])
                )
            )
        return "-"

    def __repr__(self) -> str:
        levels = pd.DataFrame(
            {
                "column": list(self.hierarchies),
                "level": [self._level(c) for c in self.hierarchies],
                "hierarchy": list(self.hierarchies.values()),
                "NCP": [f"{self.ncp[c]:.4f}" if c in self.ncp else "-" for c in self.hierarchies],
            }
        )
        fields = [
            ("algorithm", self.algorithm),
            ("privacy models", ", ".join(self.models)),
            ("rows", report.count(self.rows)),
            (
                "rows suppressed",
                f"{report.count(self.suppressed)} "
                f"(limit {report.percent(self.max_suppression, 2)})",
            ),
            ("rows modified", "-" if self.modified is None else report.count(self.modified)),
            ("equivalence classes", report.count(self.classes)),
            ("smallest class (k reached)", report.count(self.k_reached)),
            *[
                (f"{what} reached", f"{level:.4g}")
                for what, level in self.privacy.items()
                if what != "k"
            ],
            *(
                [("precision", f"{self.metrics['precision']:.4f}")]
                if "precision" in self.metrics  # only along hierarchies
                else []
            ),
            ("discernibility (DM)", report.count(int(self.metrics["dm"]))),
            ("C_avg", f"{self.metrics['c_avg']:.4f}"),
            *([("GCP", f"{self.metrics['gcp']:.4f}")] if "gcp" in self.metrics else []),
            *(
                [("QID cells unchanged", report.percent(self.metrics["unchanged"], 2))]
                if "unchanged" in self.metrics  # once the output is written
                else []
            ),
            *(
                [("query error (1-, 2-way)", f"{self.metrics['query_error']:.4f}")]
                if "query_error" in self.metrics
                else []
            ),
            *([("task utility", _task_line(self.task))] if self.task is not None else []),
            (
                "prosecutor risk max / avg",
                f"{_risk(self.risk['prosecutor_max'])} / {_risk(self.risk['prosecutor_avg'])}",
            ),
            *(
                [
                    (
                        "nodes evaluated / lattice",
                        f"{self.search['evaluated']:,} / {self.search['lattice_size']:,}",
                    )
                ]
                if "evaluated" in self.search and "lattice_size" in self.search
                else []
            ),
            *[
                (what, f"{count:,}")
                for what, count in self.search.items()
                if what not in ("evaluated", "lattice_size", "seconds", "generalized_columns")
            ],
            ("seconds", f"{self.search['seconds']:.3f}"),
            *[(f"identifier {column}", what) for column, what in self.identifiers.items()],
            *(
                [("exposure of the released columns", _exposure_line(self.exposure))]
                if self.exposure is not None
                else []
            ),
            *[
                (f"method {name}", _candidate_line(figures))
                for name, figures in (self.candidates or {}).items()
            ],
        ] + [(what, how) for what, how in self.choices.items()]
        return report.render("k-anonymization", fields, ("Levels", levels))


@dataclass(frozen=True, repr=False)
class KEAnonymizationReport(Report):
    """What a (k, ε)-anonymization did, attached to its output.

    What a (k, ε)-anonymization [1]_ did: the k-quasis' classes (``kanon``: their own
    report), the noise (per-class diameters and scales, smallest / median / largest), the
    information loss predicted before the noise and measured after it, the linking risk,
    the α-confident suppressions and where the randomness came from (never a seed). The
    report travels in the output's ``DataFrame.attrs`` (``out.anon.report()`` reads it back),
    prints as tables, converts to a JSON-able dict with ``to_dict()`` (its ``kind`` is
    ``"ke-anon"``) and back with ``from_dict``.

    Attributes
    ----------
    k : int
        The smallest class size on the k-quasis.
    eps : float
        The privacy budget ε of the noise.
    k_quasi : list of str
        The quasi-identifiers k-anonymized (the k-quasis).
    eps_quasi : list of str
        The numeric quasi-identifiers noised (the ε-quasis).
    algorithm : str
        The algorithm that k-anonymized the k-quasis.
    rows : int
        Rows of the input.
    classes : int
        Equivalence classes of the k-quasis.
    suppressed : int
        Rows suppressed by the k-anonymization.
    diameter : dict of str to float
        The classes' diameters Δ, their ``min``, ``median`` and ``max``.
    scale : dict of str to float
        The classes' noise scales Δ/ε, their ``min``, ``median`` and ``max``.
    noiseless_classes : int
        Classes whose ε-quasis do not vary (Δ = 0): no noise.
    predicted_loss : dict of str to float
        The relative error predicted before the noise, per ε-quasi and ``"mean"``.
    relative_error : dict of str to float
        The relative error of the noise measured on the rows released, per ε-quasi and
        ``"mean"`` (what ``predicted_loss`` predicts).
    linking_risk : float
        The share of records an attacker holding the originals links to their noisy record,
        measured before α-confidence suppresses anything.
    alpha : float or None
        The confidence of α-confident k-anonymity; None when not asked.
    alpha_suppressed : int
        Rows α-confidence suppressed.
    alpha_suppressed_classes : int
        Classes α-confidence suppressed whole (left with fewer than k rows).
    random_source : str
        Where the randomness came from (never a seed).
    shuffled : bool
        Whether the rows were shuffled, with a new index.
    kanon : dict
        The k-anonymization's own report, as :meth:`AnonymizationReport.to_dict` gives it.
    choices : dict of str to str
        What was chosen for the caller (``qid``, ``eps_quasi``); empty when everything was
        given.
    seconds : float
        Seconds the release of the decided plan took (the decision not included).
    modified : int or None, default None
        Rows modified: suppressed, or changed in a k-quasi or an ε-quasi.
    released_error : dict of str to float
        The relative error of the values released (the noisy values rounded and clamped
        into their domain), per ε-quasi and ``"mean"``: what a user of the release gets.
    domain : dict of str to dict
        Per ε-quasi, the domain its released values lie in: ``low``, ``high`` (both
        included) and ``source`` (``"given"``, or ``"default: ..."`` saying how it was
        derived).
    kind : str
        ``"ke-anon"``, the key of the kind in ``to_dict()`` (a class attribute).

    See Also
    --------
    pandas_anon.ke_anon : The function whose output carries it.
    pandas_anon.ke_plan : The figures of a grid of (k, ε) before publishing.
    AnonymizationReport : The k-anonymization's report (``kanon``).

    References
    ----------
    .. [1] N. Holohan, S. Antonatos, S. Braghin and P. Mac Aonghusa (2017), "(k,
       ε)-Anonymity: k-Anonymity with ε-Differential Privacy", IBM Research, sections IV
       and V.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame({
    ...     "sex": ["F"] * 4 + ["M"] * 4,
    ...     "height": [160.0, 162.0, 165.0, 170.0, 175.0, 178.0, 180.0, 185.0],
    ... })
    >>> out = pandas_anon.ke_anon(df, 2, 1.0, qid=["sex", "height"], eps_quasi=["height"], seed=7)
    >>> report = out.anon.report()
    >>> report.k_quasi, report.eps_quasi, report.classes, report.noiseless_classes
    (['sex'], ['height'], 2, 0)
    >>> report.diameter
    {'min': 10.0, 'median': 10.0, 'max': 10.0}
    >>> report.alpha, report.shuffled, report.kanon["kind"]
    (None, True, 'kanon')
    """

    k: int
    eps: float
    k_quasi: list[str]
    eps_quasi: list[str]
    algorithm: str
    rows: int
    classes: int
    suppressed: int  # by the k-anonymization
    diameter: dict[str, float]
    scale: dict[str, float]
    noiseless_classes: int  # classes whose ε-quasis do not vary: no noise
    predicted_loss: dict[str, float]  # per ε-quasi and "mean"
    relative_error: dict[str, float]  # measured, per ε-quasi and "mean"
    linking_risk: float
    alpha: float | None
    alpha_suppressed: int
    alpha_suppressed_classes: int
    random_source: str
    shuffled: bool
    kanon: dict
    choices: dict[str, str]
    seconds: float
    modified: int | None = None
    released_error: dict[str, float] = field(default_factory=dict)  # per ε-quasi and "mean"
    domain: dict[str, dict[str, Any]] = field(default_factory=dict)  # per ε-quasi

    kind: ClassVar[str] = "ke-anon"

    def __repr__(self) -> str:
        loss = pd.DataFrame(
            {
                "ε-quasi": [*self.eps_quasi, "mean"],
                "predicted relative error": [
                    report.percent(self.predicted_loss[c], 2) for c in [*self.eps_quasi, "mean"]
                ],
                "measured": [
                    report.percent(self.relative_error[c], 2) for c in [*self.eps_quasi, "mean"]
                ],
                "released (rounded, clamped)": [
                    report.percent(self.released_error[c], 2) if self.released_error else "-"
                    for c in [*self.eps_quasi, "mean"]
                ],
            }
        )
        domain = pd.DataFrame(
            {
                "ε-quasi": list(self.domain),
                "low": [f"{d['low']:g}" for d in self.domain.values()],
                "high": [f"{d['high']:g}" for d in self.domain.values()],
                "source": [d["source"] for d in self.domain.values()],
            }
        )
        alpha = (
            f"{report.plural(self.alpha_suppressed, 'row')}, "
            f"{report.plural(self.alpha_suppressed_classes, 'whole class', 'whole classes')} (α = {self.alpha:g})"
            if self.alpha is not None
            else "not asked (alpha=None)"
        )
        fields = [
            ("k, ε", f"{self.k}, {self.eps:g}"),
            ("k-quasis", ", ".join(self.k_quasi)),
            ("ε-quasis", ", ".join(self.eps_quasi)),
            ("algorithm (k-quasis)", self.algorithm),
            ("rows", report.count(self.rows)),
            ("equivalence classes", report.count(self.classes)),
            ("rows suppressed (k-anonymity)", report.count(self.suppressed)),
            ("classes without noise (Δ = 0)", report.count(self.noiseless_classes)),
            ("diameter Δ min / median / max", _spread(self.diameter)),
            ("noise scale Δ/ε min / median / max", _spread(self.scale)),
            ("linking risk", report.percent(self.linking_risk, 2)),
            ("α-confident suppression", alpha),
            ("random source", self.random_source),
            ("rows shuffled", "yes, new index" if self.shuffled else "no"),
            ("seconds", f"{self.seconds:.3f}"),
            *self.choices.items(),
        ]
        return report.render(
            "(k, ε)-anonymization",
            fields,
            ("Information loss", loss),
            ("Domain of the released values", domain),
        )


def _spread(figures: Mapping[str, float]) -> str:
    return " / ".join(f"{figures[at]:.4g}" for at in ("min", "median", "max"))


def _risk(value: float) -> str:
    """A risk to 4 decimals; a tiny non-zero one is never printed as 0.0000."""
    return "< 0.0001" if 0 < value < 0.0001 else f"{value:.4f}"


def _task_line(task: Mapping[str, Any]) -> str:
    """``"salary-class: accuracy 0.8110 (original 0.8330, majority 0.7510), 73.00 % of the
    margin kept"``."""
    kept = task["margin_kept"]
    return (
        f"{task['target']}: accuracy {task['output']:.4f} (original {task['original']:.4f}, "
        f"majority {task['majority']:.4f}), "
        + ("no margin to keep" if kept is None else f"{report.percent(kept, 2)} of the margin kept")
    )


def _candidate_line(figures: dict) -> str:
    """``"61.3 % of cells unchanged, 0 rows suppressed, 13,487 classes, 0.52 s"``, or
    ``"not tried: <why>"``."""
    if "skipped" in figures:
        return f"not tried: {figures['skipped']}"
    return (
        f"{report.percent(figures['unchanged'], 1)} of cells unchanged, "
        f"{report.count(figures['suppressed'])} rows suppressed, "
        f"{report.count(figures['classes'])} classes, {figures['seconds']:.2f} s"
    )


def _exposure_line(exposure: dict) -> str:
    """``"passes: (a, b, c) has 0 rows in classes below k=5"``."""
    verdict = "passes" if exposure["passes"] else "FAILS"
    return (
        f"{verdict}: {report.columns(exposure['columns'])} has "
        f"{report.count(exposure['rows_below_k'])} rows in classes below k={exposure['k']} "
        f"(subsets of up to {exposure['max_size']} columns)"
    )


def attach(frame: Any, result: Report) -> Any:
    """Let ``result`` travel with ``frame`` (a new attrs dict: the input's is not touched;
    a Dask frame, which has no attrs, holds it as an attribute of the collection: the
    lazy output of a computation already made, whose report is known)."""
    if is_dask(frame):
        setattr(frame, _DASK_ATTRIBUTE, result.to_dict())
        return frame
    frame.attrs = {**frame.attrs, REPORT_KEY: result.to_dict()}
    return frame


def report_of(frame: Any) -> Report:
    """The report a frame produced by pandas-anon carries."""
    if is_dask(frame):
        payload = getattr(frame, _DASK_ATTRIBUTE, None)
        dropped = "an operation since made a new Dask frame, which does not carry it"
    else:
        payload = frame.attrs.get(REPORT_KEY)
        dropped = "an operation since (merge, concat) dropped DataFrame.attrs"
    if not isinstance(payload, dict) or payload.get("kind") not in Report._kinds:
        raise AnonError(
            f"this frame carries no pandas-anon report: it did not come from generalize() or "
            f"kanon(), or {dropped}"
        )
    return Report.from_dict(payload)


#: The attribute of a Dask frame holding its report (:func:`attach`).
_DASK_ATTRIBUTE = "_pandas_anon_report"
