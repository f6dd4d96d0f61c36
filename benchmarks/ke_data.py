"""The data of Holohan et al.'s (k, ε) experiment (2017, section VI): UCI Adult with a
synthetic height, and the paper's hierarchies of the k-quasis (Table I).

**Height.** The paper draws each person's height from a normal distribution fitted, by age
group and sex, to Fryar, Gu and Ogden (2012), "Anthropometric Reference Data for Children
and Adults: United States, 2007-2010" (NCHS, Vital and Health Statistics 11(252)), the
NHANES tables of height in centimetres for adults by age group. The means below are that
report's for men and women aged 20 and over by decade of age (80 and over the last group);
the standard deviations are ours: the report gives percentiles, not deviations, and its
5th-95th percentile spread of about 24 cm (men) and 22 cm (women) is 3.29 deviations of a
normal law. Adult's 17 to 19 year olds take the 20-29 group. The report could not be
re-read from this machine (only the package registries are reachable); the figures below were
transcribed when the script was written, and the experiment depends on them only through
the spread of heights inside each class.

**Hierarchies** (Table I): age (Adult has no year of birth; its age in years plays that
part), value, 2-, 4- and 8-year intervals, then ``*``; sex and race, value then ``*``;
marital status, value, then "alone" or "in marriage" (married with a spouse present:
``Married-civ-spouse``, ``Married-AF-spouse``; every other status, ``Married-spouse-absent``
included, "alone"), then ``*``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pandas_anon.datasets import load_adult
from pandas_anon.hierarchy import Hierarchy, intervals

import harness  # noqa: F401  (the repository first on sys.path)

#: Mean height (cm) of men and of women by the first age of each decade (Fryar et al. 2012).
MEAN_HEIGHT = {
    "Male": {20: 176.7, 30: 176.8, 40: 176.4, 50: 175.8, 60: 175.3, 70: 173.4, 80: 170.6},
    "Female": {20: 162.8, 30: 163.1, 40: 162.9, 50: 162.1, 60: 160.8, 70: 158.5, 80: 155.6},
}
#: Standard deviation (cm): the report's 5th-95th percentile spread over 3.29.
SD_HEIGHT = {"Male": 7.4, "Female": 6.7}

K_QUASI = ["age", "sex", "race", "marital-status"]
IN_MARRIAGE = {"Married-civ-spouse", "Married-AF-spouse"}


def adult_with_height(seed: int = 2017) -> pd.DataFrame:
    """UCI Adult (30,162 rows) with ``height`` (cm, one decimal) drawn by age group and sex."""
    adult = load_adult()
    decade = np.clip(adult["age"].to_numpy() // 10 * 10, 20, 80)
    sex = adult["sex"].to_numpy()
    mean = np.array([MEAN_HEIGHT[s][d] for s, d in zip(sex, decade)])
    sd = np.array([SD_HEIGHT[s] for s in sex])
    rng = np.random.default_rng(seed)
    return adult.assign(height=np.round(rng.normal(mean, sd), 1))


def paper_hierarchies(frame: pd.DataFrame) -> dict[str, Hierarchy]:
    """The hierarchies of Table I for the k-quasis of ``frame``."""
    statuses = frame["marital-status"].unique()
    return {
        "age": intervals(frame["age"], width=[2, 4, 8], name="age: 2-, 4-, 8-year intervals"),
        "sex": Hierarchy(frame["sex"].unique(), name="sex: value, *"),
        "race": Hierarchy(frame["race"].unique(), name="race: value, *"),
        "marital-status": Hierarchy(
            statuses,
            [["in marriage" if s in IN_MARRIAGE else "alone" for s in statuses]],
            name="marital status: alone / in marriage, *",
        ),
    }
