"""Task utility: how well a release still predicts a target column, as ARX measures it.

ARX's classification utility (Eicher, Bild, Spengler, Kuhn and Prasser 2020, "A
Comprehensive Tool for Creating and Evaluating Privacy-Preserving Biomedical Prediction
Models", BMC Medical Informatics and Decision Making 20, section "Methods") trains the same
classifier on the original and on the anonymized table and sets both against the trivial
model that always predicts the majority class. The model here is fixed, so the same input
gives the same figures:

- **features**: the released columns other than the target (the output's columns, those
  :meth:`~pandas_anon.anonymization.transformation.Transformation.apply` dropped left out),
  each one-hot encoded by its values as written (a range, a hierarchy's label, the
  suppression mark ``*`` and a missing value are categories like any other); the original's
  features are the same columns as read;
- **target**: the target column of the original, its values as written, a missing value a
  class of its own;
- **model**: scikit-learn's ``LogisticRegression`` (L2, C = 1, lbfgs, at most 1,000
  iterations), scored by accuracy over :data:`FOLDS`-fold stratified cross-validation with
  the rows shuffled by the seed :data:`SEED`, the same folds for the original, the output
  and the majority class (``DummyClassifier``, most frequent).

The figures: the three accuracies, and the share of the original's margin over the majority
class that the output keeps, ``(output - majority) / (original - majority)`` (None when the
original does no better than the majority). scikit-learn is the optional ``ml`` extra
(``pip install 'pandas-anon[ml]'``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.engine.columns import columns_except, resolve_columns
from pandas_anon.engine.encoding import factorize
from pandas_anon.errors import InvalidParameterError, MissingDependencyError

#: The folds of the cross-validation, and the seed that shuffles the rows into them.
FOLDS = 5
SEED = 0


@dataclass(frozen=True)
class TaskUtility:
    """A classifier's cross-validated accuracy on a release, the original and the majority
    class (see the module).

    Attributes
    ----------
    target : str
        The target column.
    output : float
        The accuracy of the model trained on the release.
    original : float
        The accuracy of the same model trained on the original.
    majority : float
        The accuracy of always predicting the majority class.
    """

    target: str
    output: float
    original: float
    majority: float

    @property
    def margin_kept(self) -> float | None:
        """``(output - majority) / (original - majority)``: the share of the original's
        margin over the majority class the release keeps; None without a margin."""
        margin = self.original - self.majority
        return (self.output - self.majority) / margin if margin > 0 else None

    def to_dict(self) -> dict[str, Any]:
        """The figures as a JSON-able dict, ``margin_kept`` included."""
        return {
            "target": self.target,
            "output": self.output,
            "original": self.original,
            "majority": self.majority,
            "margin_kept": self.margin_kept,
        }


def features_of(output: pd.DataFrame, original: pd.DataFrame, target: Hashable) -> list[Hashable]:
    """The released columns a classifier reads: the output's columns other than ``target``
    that the original holds too."""
    return [c for c in columns_except(output.columns, target) if c in original.columns]


def baseline(
    original: pd.DataFrame, target: Hashable, features: Sequence[Hashable]
) -> tuple[float, float]:
    """The model's accuracy on the original's ``features``, and the majority class's."""
    classes = _target(original, target)
    folds = _folds(classes)
    return _accuracy(_one_hot(original, features), classes, folds), _majority(classes, folds)


def task_utility(
    original: pd.DataFrame,
    output: pd.DataFrame,
    target: Hashable,
    *,
    features: Sequence[Hashable] | None = None,
    known: tuple[float, float] | None = None,
) -> TaskUtility:
    """A classifier's cross-validated accuracy predicting ``target`` from ``output``,
    against the original's and the majority class's (see the module).

    Parameters
    ----------
    original : pandas.DataFrame
        The table as read; ``target`` is read from it.
    output : pandas.DataFrame
        Its release, row for row (suppressed rows masked, not dropped).
    target : hashable
        The column to predict, a column of ``original``.
    features : sequence of hashable, optional
        The columns the model reads; default: :func:`features_of`.
    known : tuple of float, optional
        The original's and the majority's accuracies (:func:`baseline`), when computed.

    Returns
    -------
    TaskUtility

    Raises
    ------
    ColumnNotFoundError
        When ``target`` is not a column of ``original``.
    InvalidParameterError
        When the output has not the original's rows, the target has fewer than two classes
        or fewer rows than folds, or no column is left to read.
    MissingDependencyError
        When scikit-learn is not installed.
    """
    resolve_columns(original, [target])
    if len(output) != len(original):
        raise InvalidParameterError(
            f"task utility compares a release with its original row for row: the output "
            f"holds {len(output):,} rows and the original {len(original):,}; release the "
            f"suppressed rows masked (suppress='mask'), not dropped"
        )
    features = features_of(output, original, target) if features is None else list(features)
    if not features:
        raise InvalidParameterError(
            f"task utility needs columns to predict {target!r} from: the release holds none "
            f"but the target"
        )
    classes = _target(original, target)
    if known is None:
        known = baseline(original, target, features)
    accuracy = _accuracy(_one_hot(output, features), classes, _folds(classes))
    return TaskUtility(str(target), accuracy, *known)


def _target(original: pd.DataFrame, target: Hashable) -> np.ndarray:
    """The target's class codes (missing: a class of its own), refused unless there are two
    classes and at least :data:`FOLDS` rows."""
    codes, _ = factorize(original[target], where=f"column {target!r}")
    codes = np.where(codes < 0, codes.max(initial=-1) + 1, codes)
    if len(np.unique(codes)) < 2 or len(codes) < FOLDS:
        raise InvalidParameterError(
            f"target={target!r}: a classifier needs at least two classes and {FOLDS} rows "
            f"to be cross-validated; name a column with several values"
        )
    return codes


def _one_hot(frame: pd.DataFrame, columns: Sequence[Hashable]) -> Any:
    """The one-hot encoding of ``columns`` (values as written, missing a value), sparse."""
    from scipy import sparse

    parts = []
    for column in columns:
        codes, _ = factorize(frame[column], where=f"column {column!r}")
        codes = np.where(codes < 0, codes.max(initial=-1) + 1, codes)
        width = int(codes.max(initial=-1)) + 1
        parts.append(
            sparse.csr_matrix(
                (np.ones(len(codes)), (np.arange(len(codes)), codes)), shape=(len(codes), width)
            )
        )
    return sparse.hstack(parts, format="csr")


def scikit_learn() -> Any:
    """scikit-learn's modules the task utility uses (``dummy``, ``linear_model``,
    ``model_selection``).

    Raises
    ------
    MissingDependencyError
        When scikit-learn is not installed, saying what to install.
    """
    try:
        from sklearn import dummy, linear_model, model_selection
    except ImportError as error:
        raise MissingDependencyError(
            "task utility (target=...) trains a scikit-learn classifier, which is not "
            "installed; pip install 'pandas-anon[ml]' (or scikit-learn)"
        ) from error
    return dummy, linear_model, model_selection


def _folds(classes: np.ndarray) -> list:
    """The cross-validation's folds: stratified, the rows shuffled by :data:`SEED`."""
    _, _, model_selection = scikit_learn()
    splitter = model_selection.StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=SEED)
    return list(splitter.split(np.zeros(len(classes)), classes))


def _accuracy(features: Any, classes: np.ndarray, folds: list) -> float:
    """The logistic regression's mean accuracy over ``folds``."""
    _, linear_model, model_selection = scikit_learn()
    model = linear_model.LogisticRegression(max_iter=1000)
    return float(model_selection.cross_val_score(model, features, classes, cv=folds).mean())


def _majority(classes: np.ndarray, folds: list) -> float:
    """Always predicting the training folds' majority class: its mean accuracy."""
    dummy, _, model_selection = scikit_learn()
    model = dummy.DummyClassifier(strategy="most_frequent")
    features = np.zeros((len(classes), 1))
    return float(model_selection.cross_val_score(model, features, classes, cv=folds).mean())
