"""Population uniqueness: how many people of the population a sample's quasi-identifier singles
out, estimated from the sample's class-size histogram, as ARX 3.9 estimates it.

A row unique in a sample (a survey, a 10 % extract) is usually not unique in the population the
sample was drawn from. Given the population's size ``N`` (or the sampling fraction ``f = n /
N``), the models below estimate the number of population uniques from the number ``c_j`` of
sample classes of each size ``j`` alone; the rows are never read. They are the four models of
ARX 3.9 (``org.deidentifier.arx.risk``: ``RiskModelPopulationUniqueness``, ``ModelZayatz``,
``ModelPitman``, ``ModelSNB``), ported with its arithmetic, starting points, iteration limits,
tolerances and fallbacks, so that the figures are ARX's:

- **Zayatz** [1]_ (section 2): the probability that a sample unique is a population unique, by
  the hypergeometric law of drawing one member of a class of each size, times ``c_1 / f``.
- **Pitman** [2]_ (section 3): Pitman's sampling formula fitted to the histogram by maximum
  likelihood (``theta``, ``alpha``); the population uniques are ``Gamma(theta + 1) /
  Gamma(theta + alpha) * N ** alpha``.
- **SNB**, the slide negative binomial [3]_ (section 3): a negative binomial (``alpha``,
  ``beta``) fitted to ``c_1`` and ``c_2`` over the Haas-Shlosser estimate of the population's
  non-empty classes; the population uniques are ``K * beta ** alpha``.
- **Dankar et al.'s decision rule** [4]_ (section "Decision rule"): Pitman when ``f <= 0.1``
  (Zayatz when Pitman has no estimate), else the smaller of Zayatz and SNB (Zayatz when SNB has
  none). ARX reports this figure as "population uniqueness".

Given the sample's combinations as well (``codes``, as :func:`pandas_anon.risk` gives them),
:func:`population_uniqueness` adds the estimate of a log-linear model of the combinations
(:mod:`pandas_anon.detect.loglinear`), and that estimate is the default: on registers ARX's
models are far off.

ARX's rules, mirrored here:

- A sample without uniques has no population uniques: every estimate is 0 (and no model is
  chosen).
- ``N`` given as a fraction is ``round(n / f)`` (``ARXPopulationModel``), and ``f`` is then
  ``n / N``.
- A model has no estimate when its count of population uniques is NaN or exactly 0 (ARX's
  ``isAvailableEstimate``): ``None`` here. Pitman's estimate is also refused outside ``[0,
  N]``; SNB's is not checked (ARX can report a negative one, and so does this module).
- Both maximum-likelihood fits are solved by Newton-Raphson as ARX's solver
  (``de.linearbits.newtonraphson`` 0.0.1, ``ARXSolverConfiguration``) solves them: from the
  model's starting point (Pitman: the moment estimates below; SNB: ``(1, 1)``), then from the 16
  points ``{0, 0.33, 0.66, 0.99}^2``, at most 1,001 steps from each, until both equations are
  within ``1e-6`` of zero; a start is left after a step giving NaN, or for Pitman a negative
  ``theta``; the last start is given a single step. ARX also stops after 100 ms per start and 1 s
  in all, by the clock; this module counts steps only (the same input, the same figure).
- Pitman is solved first with ARX's closed-form Jacobian, which uses Minka's trigamma as ARX
  ports it (for arguments below 12 it leaves out the asymptotic tail: a wrong Jacobian, which
  changes where Newton's steps go and whether they arrive, not the root); when no start reaches
  a root, again with the Jacobian of the log-likelihood's sums written out term by term (ARX's
  "iterative" functions), which is the same function with the exact trigamma. ARX checks a
  closed-form root against those sums too; they are equal up to rounding, and so is the check.
- SNB's estimate of the population's classes keeps ARX's ``sum((1 - f) ** j * c_j * (1 + f) **
  j - 1)`` (the ``- 1`` inside the sum).
- Commons Math's hypergeometric law in Zayatz's model takes ``N`` as an ``int`` (ARX clamps a
  larger population to 2^31 - 1, a bug its code marks); here ``N`` is not clamped.

Every operation of the solvers' equations is made in ARX's order (sums one term after the
other), so that Newton's steps are ARX's to the last bit where the equations are well
conditioned: on the tests' data sets and histograms the figures agree with ARX's to a relative
1e-8. Where Pitman's steps reach a negative ``alpha`` the closed-form equations are evaluated
near the poles of the digamma reflection formula, the rounding of ``theta / alpha`` is
amplified to about the solver's tolerance, and the last bit of Java's ``StrictMath`` sine,
tangent and logarithm (fdlibm), which differ from the C library's for a few percent of
arguments, decides where the steps go: the two solvers can then end at different roots (ARX
sometimes at a degenerate one giving no estimate). On random histograms this changes about one
Pitman estimate in 150.

References
----------
.. [1] Zayatz (1991), "Estimation of the Percent of Unique Population Elements on a
   Microdata File Using the Sample", U.S. Bureau of the Census, Statistical Research Division
   Report Census/SRD/RR-91/08, section 2.
.. [2] Hoshino (2001), "Applying Pitman's Sampling Formula to Microdata Disclosure Risk
   Assessment", Journal of Official Statistics 17(4), section 3.
.. [3] Chen and Keller-McCormick (1998), "Estimating the Number of Population Uniques: a
   Comparison of Two Models", Proceedings of the Survey Research Methods Section, American
   Statistical Association, section 3 (the slide negative binomial model).
.. [4] Dankar, El Emam, Neisa and Roffey (2012), "Estimating the re-identification risk of
   clinical data sets", BMC Medical Informatics and Decision Making 12:66, section "Methods:
   Decision rule".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pandas_anon import formatting as fmt
from pandas_anon import params
from pandas_anon.detect.loglinear import loglinear_uniqueness
from pandas_anon.errors import InvalidParameterError

#: The models, in the order they are reported.
MODELS = ("zayatz", "pitman", "snb", "dankar")
_NAMES = {
    "zayatz": "Zayatz",
    "pitman": "Pitman",
    "snb": "SNB",
    "dankar": "Dankar",
    "loglinear": "log-linear",
}
#: The estimate of :mod:`pandas_anon.detect.loglinear`, in ``by_model`` when the sample's
#: combinations are given (not one of ARX's).
LOGLINEAR = "loglinear"

#: Dankar et al.'s rule: Pitman up to this sampling fraction, min(Zayatz, SNB) above it.
PITMAN_UP_TO = 0.1

#: ARX's solver: both equations within this of zero.
ACCURACY = 1e-6
#: ARX's solver: steps from one start (``iterations++ >= 1000`` leaves after 1,001).
STEPS_PER_START = 1000


def _start_points() -> list[tuple[float, float]]:
    """``ARXSolverConfiguration.getDefaultStartValues``: ``d += 0.33`` from 0 while below 1,
    in both coordinates (the same doubles as Java's loop)."""
    steps = []
    d = 0.0
    while d < 1.0:
        steps.append(d)
        d += 0.33
    return [(a, b) for a in steps for b in steps]


START_POINTS = _start_points()

#: A function of the two unknowns giving both equations and their Jacobian
#: ``(f1, f2, j11, j12, j21, j22)``.
Equations = Callable[[float, float], tuple[float, float, float, float, float, float]]


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniques of a sample, by model, by Dankar et al.'s rule and, given
    the sample's combinations, by the log-linear model (the default then).

    Attributes
    ----------
    population : int
        The population's size ``N``.
    sampling_fraction : float
        The sample's rows (people, with weights) over ``N``.
    uniques : float or None
        The fraction of the population's records unique on the QID: the log-linear model's
        (``by_model["loglinear"]``) when the sample's combinations were given, else Dankar
        et al.'s rule's (``by_model["dankar"]``), what ARX reports as population uniqueness;
        None where the chosen model has no estimate.
    model : str or None
        The model ``uniques`` comes from: ``"loglinear"``, or the model Dankar et al.'s rule
        chose (``"pitman"``, ``"zayatz"`` or ``"snb"``); None for a sample without uniques
        (every estimate is then 0).
    by_model : dict
        ``zayatz``, ``pitman``, ``snb`` and ``dankar``: each model's fraction of the population
        unique on the QID, or None where the model has no estimate; ``loglinear`` too when
        the sample's combinations were given
        (:func:`~pandas_anon.detect.loglinear.loglinear_uniqueness`).
    dankar_model : str or None
        The model Dankar et al.'s rule chose (``model`` without the log-linear model).
    """

    population: int
    sampling_fraction: float
    uniques: float | None
    model: str | None
    by_model: dict[str, float | None]
    dankar_model: str | None = None

    def fields(self) -> list[tuple[str, str]]:
        """The rows a risk result prints: the population, the estimate (and Dankar's rule's,
        when it is not the estimate) and each model's."""

        def shown(value: float | None) -> str:
            return "no estimate" if value is None else fmt.percent(value)

        chosen = "no sample uniques" if self.model is None else f"by {_NAMES[self.model]}"
        if self.model == LOGLINEAR and self.dankar_model is not None:
            arx = shown(self.by_model["dankar"])
            chosen += f"; ARX's rule: {_NAMES[self.dankar_model]}, {arx}"
        shown_models = [m for m in self.by_model if m != "dankar"]
        models = ", ".join(f"{_NAMES[m]} {shown(self.by_model[m])}" for m in shown_models)
        return [
            (
                "population (sampling fraction)",
                f"{fmt.count(self.population)} ({fmt.percent(self.sampling_fraction)})",
            ),
            ("population uniques", f"{shown(self.uniques)} ({chosen})"),
            ("population uniques by model", models),
        ]

    def to_dict(self) -> dict:
        return {
            "population": self.population,
            "sampling_fraction": self.sampling_fraction,
            "population_uniques": self.uniques,
            "population_model": self.model,
            "population_dankar_model": self.dankar_model,
            "population_uniques_by_model": dict(self.by_model),
        }


def population_size(
    rows: int, population: object = None, sampling_fraction: object = None
) -> int | None:
    """The population's size from ``population`` or ``sampling_fraction`` (None: neither).

    ``population``: a whole number, at least ``rows`` (the table's rows, or people with
    weights). ``sampling_fraction``: a fraction in (0, 1] (a number, or text such as ``"10%"``);
    the size is then ``round(rows / sampling_fraction)``, as ARX's ``ARXPopulationModel``
    rounds it. Anything else raises :class:`~pandas_anon.errors.InvalidParameterError`.
    """
    check_population(population, sampling_fraction)
    if population is not None:
        size = params.whole(population, "population", example=1_000_000)
        if size < rows:
            raise InvalidParameterError(
                f"population={size} is smaller than the table ({rows} rows, or people with "
                f"weights): pass the size of the population the table was drawn from, at "
                f"least {rows}"
            )
        return size
    if sampling_fraction is not None:
        fraction = params.fraction(sampling_fraction, "sampling_fraction")
        return math.floor(rows / fraction + 0.5)
    return None


def check_population(population: object, sampling_fraction: object) -> None:
    """Refuse ``population`` and ``sampling_fraction`` given together, a ``population`` that
    is no whole number of at least 1, and a ``sampling_fraction`` outside (0, 1], before any
    row is read (:class:`~pandas_anon.errors.InvalidParameterError`)."""
    if population is not None and sampling_fraction is not None:
        raise InvalidParameterError(
            "population and sampling_fraction both given: pass one of them (the population's "
            "size, or the table's rows over it)"
        )
    if population is not None:
        params.whole(population, "population", example=1_000_000)
    if sampling_fraction is not None:
        fraction = params.fraction(sampling_fraction, "sampling_fraction")
        if fraction == 0:
            raise InvalidParameterError(
                "sampling_fraction must be above 0 (a table drawn from a population holds "
                "some of it), at most 1, such as 0.1, got 0"
            )


def population_uniqueness(
    counts: np.ndarray, population: int, codes: np.ndarray | None = None
) -> PopulationUniqueness:
    """Estimate the population uniques of a sample from its class sizes.

    Parameters
    ----------
    counts : numpy.ndarray
        The size of each equivalence class of the sample (the counts of its frequency set);
        only their histogram is read.
    population : int
        The population's size, at least ``counts.sum()``.
    codes : numpy.ndarray, optional
        The combinations ``counts`` counts (the frequency set's codes, one row per class):
        given, ``by_model`` adds ``loglinear``, the log-linear model's estimate
        (:func:`~pandas_anon.detect.loglinear.loglinear_uniqueness`), and it is the estimate
        (``uniques``): within 30 % of the truth on samples of 10 % and more of Valle d'Aosta's
        licences and of Adult, where Dankar et al.'s rule is up to nearly twice it
        (``benchmarks/bench_population.py``).

    Returns
    -------
    PopulationUniqueness
        Each model's estimated fraction of the population unique on the QID, Dankar et al.'s
        choice among ARX's models, and the estimate.
    """
    sizes, classes = np.unique(np.asarray(counts, dtype=np.int64), return_counts=True)
    n = float(np.dot(sizes.astype(np.float64), classes))
    fraction = n / population
    uniques = float(classes[0]) if sizes.size and sizes[0] == 1 else 0.0
    extra = () if codes is None else (LOGLINEAR,)
    if uniques == 0:
        zeros: dict[str, float | None] = dict.fromkeys(MODELS + extra, 0.0)
        return PopulationUniqueness(population, fraction, 0.0, None, zeros)
    histogram = _Histogram(sizes.astype(np.float64), classes.astype(np.float64), n, population)
    with np.errstate(all="ignore"):
        counted = {
            "zayatz": _zayatz(histogram),
            "pitman": _pitman(histogram),
            "snb": _snb(histogram),
        }
    model, chosen = _dankar(counted, fraction)
    counted["dankar"] = chosen
    by_model = {
        name: float(counted[name]) / population if _valid(counted[name]) else None
        for name in MODELS
    }
    if codes is None:
        return PopulationUniqueness(
            population, fraction, by_model["dankar"], model, by_model, model
        )
    by_model[LOGLINEAR] = loglinear_uniqueness(codes, counts, population)
    return PopulationUniqueness(
        population, fraction, by_model[LOGLINEAR], LOGLINEAR, by_model, model
    )


@dataclass(frozen=True)
class _Histogram:
    """The class-size histogram: ``sizes`` (ascending, distinct) and the ``classes`` of each,
    the sample's rows ``n`` and the population's size ``N``."""

    sizes: np.ndarray
    classes: np.ndarray
    n: float
    N: int

    @property
    def u(self) -> float:
        """The sample's classes."""
        return float(self.classes.sum())

    def of_size(self, size: int) -> float:
        """The sample's classes of ``size`` rows."""
        found = self.classes[self.sizes == size]
        return float(found[0]) if found.size else 0.0

    @property
    def f(self) -> float:
        """The sampling fraction ``n / N``."""
        return self.n / self.N


def _valid(value: float) -> bool:
    """ARX's ``isValid``: an estimate exists when it is neither NaN nor exactly 0."""
    return not math.isnan(value) and value != 0


def _dankar(counted: dict[str, float], fraction: float) -> tuple[str, float]:
    """Dankar et al.'s decision rule over the counted estimates, as ARX applies it
    (``getNumUniqueTuplesDankar`` with Zayatz as fallback): the model and its count."""
    zayatz, pitman, snb = counted["zayatz"], counted["pitman"], counted["snb"]
    if fraction <= PITMAN_UP_TO:
        return ("pitman", pitman) if _valid(pitman) else ("zayatz", zayatz)
    if _valid(snb) and not zayatz < snb:
        return "snb", snb
    return "zayatz", zayatz


def _zayatz(h: _Histogram) -> float:
    """Zayatz (1991): population uniques, ``c_1 / f`` times the probability that a sample
    unique comes from a population unique, ``c_1 P_1 / sum_j c_j P_j`` with ``P_j`` the
    hypergeometric probability of drawing exactly one member of a class of ``j`` in a sample
    of ``n`` from ``N``. The ratios ``P_j / P_1 = j C(N - j, n - 1) / C(N - 1, n - 1)`` are
    computed in logarithms (0 where ``n - 1 > N - j``)."""
    n, big = h.n, float(h.N)
    rest = big - h.sizes  # N - j
    drawn = rest - n + 1  # N - j - (n - 1): at least 0 where P_j > 0
    possible = drawn >= 0
    log_ratio = np.full(h.sizes.shape, -np.inf)
    lg = np.vectorize(math.lgamma, otypes=[np.float64])
    log_ratio[possible] = (
        np.log(h.sizes[possible])
        + lg(rest[possible] + 1)
        - lg(drawn[possible] + 1)
        - (math.lgamma(big) - math.lgamma(big - n + 1))
    )
    c1 = h.of_size(1)
    uniqueness = c1 / float(np.dot(h.classes, np.exp(log_ratio)))
    return c1 * uniqueness / h.f


def _pitman(h: _Histogram) -> float:
    """Pitman's model as in Hoshino (2001): the maximum-likelihood ``theta`` and ``alpha`` of
    Pitman's sampling formula for the histogram, then ``Gamma(theta + 1) / Gamma(theta + alpha)
    * N ** alpha`` population uniques (NaN where no root is found or the figure falls outside
    [0, N])."""
    c1, c2, u, n = h.of_size(1), h.of_size(2), h.u, h.n
    c2 = c2 if c2 != 0 else 1.0  # ARX: "Overestimate"
    c = np.float64(c1 * (c1 - 1)) / c2
    theta = (n * u * c - c1 * (n - 1) * (2 * u + c)) / ((2 * c1 * u + c1 * c) - n * c)
    alpha = (theta * (c1 - n) + (n - 1) * c1) / (n * u)
    start = (float(theta), float(alpha))
    root = _newton_raphson(_pitman_equations(h, exact=False), start, theta_nonnegative=True)
    if math.isnan(root[0]) or math.isnan(root[1]):
        root = _newton_raphson(_pitman_equations(h, exact=True), start, theta_nonnegative=True)
    return _pitman_uniques(root, h.N)


def _pitman_equations(h: _Histogram, *, exact: bool) -> Equations:
    """The likelihood equations of Pitman's model in ``(theta, alpha)`` and their Jacobian,
    in ARX's closed form (``ModelPitman.getMasterFunctionClosed``), with ARX's trigamma or
    (``exact``) the exact one."""
    u, n = h.u, h.n
    above_one = h.sizes != 1
    keys, counts = h.sizes[above_one], h.classes[above_one]
    val0 = u - 1.0

    def equations(t: float, a: float) -> tuple[float, float, float, float, float, float]:
        t, a = np.float64(t), np.float64(a)
        shifted = keys - a
        psi = digamma(
            np.concatenate(([val0 + t / a + 1.0, t / a + 1.0, n + t, t + 1.0, 1.0 - a], shifted))
        )
        tri = trigamma(
            np.concatenate(
                ([(a + t + a * val0) / a, t / a + 1.0, t + 1.0, n + t, 1.0 - a], shifted)
            ),
            exact=exact,
        )
        val1, val4, psi_nt, psi_t1, val6 = psi[:5]
        val2, val3, tri_t1, tri_nt, val7 = tri[:5]
        val5 = a * a
        d1 = (val3 - val2) / val5
        d5 = ((a * val1 + t * val2) - a * val4 - t * val3) / (val5 * a)
        d3 = ((((val5 * val0) - (t * t * val2)) + (t * t * val3)) - (2.0 * a * t * val1)) + (
            2.0 * a * t * val4
        )
        d3 = d3 / (val5 * val5)
        o1 = (val1 - val4) / a
        o3 = ((-t * val1) + (a * val0) + (t * val4)) / (a * a)
        o2 = psi_nt - psi_t1
        d2 = tri_t1 - tri_nt
        d4 = _sequential_sum(counts * (val7 - tri[5:]))
        o4 = _sequential_sum(counts * (psi[5:] - val6))
        return o1 - o2, o3 - o4, d2 - d1, -d5, -d5, -d3 - d4

    return equations


def _sequential_sum(terms: np.ndarray) -> float:
    """The sum of ``terms`` added one after the other from the first, as ARX's loops add
    them (numpy's pairwise sum rounds differently, and Newton's steps follow the last bits)."""
    return float(np.cumsum(terms)[-1]) if terms.size else 0.0


def _pitman_uniques(root: tuple[float, float], population: int) -> float:
    """``ModelPitman.getResult``: ``Gamma(theta + 1) / Gamma(theta + alpha) * N ** alpha``,
    through log-gamma and through gamma, each kept when in [0, N]; the larger of the two kept,
    NaN when neither is."""
    t, a = root
    if math.isnan(t) or math.isnan(a) or a == 0:
        return math.nan
    scale = np.float64(population) ** np.float64(a)
    through_logs = np.exp(np.float64(_log_gamma(t + 1) - _log_gamma(t + a))) * scale
    through_gamma = np.float64(_gamma(t + 1)) / np.float64(_gamma(t + a)) * scale
    kept = [float(v) for v in (through_logs, through_gamma) if 0 <= v <= population]
    return max(kept) if kept else math.nan


def _log_gamma(x: float) -> float:
    """Commons Math's ``Gamma.logGamma``: NaN at or below 0."""
    return math.lgamma(x) if x > 0 and math.isfinite(x) else math.nan


def _gamma(x: float) -> float:
    """``Gamma.gamma``: NaN at the poles, infinity past the largest double."""
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def _snb(h: _Histogram) -> float:
    """The slide negative binomial of Chen and Keller-McCormick (1998): ``alpha`` and
    ``beta`` solving the model's expected ``c_1`` and ``c_2`` over ``K`` population classes
    (the Haas-Shlosser estimate), then ``K * beta ** alpha`` population uniques."""
    c1, c2, f = h.of_size(1), h.of_size(2), h.f
    j, cj = h.sizes, h.classes
    kept = (1 - f) ** j * cj
    var1 = float(np.sum(j * (f * f) * (1 - f * f) ** (j - 1) * cj))
    var2 = float(np.sum(kept * (1 + f) ** j - 1))  # ARX's "- 1" inside the sum
    var3 = float(np.sum(kept))
    var4 = float(np.sum(j * f * (1 - f) ** (j - 1) * cj))
    k = np.float64(h.u) + c1 * (np.float64(var1) / var2) * (np.float64(var3) / var4) * (
        np.float64(var3) / var4
    )
    a, b = _newton_raphson(_snb_equations(float(k), f, c1, c2), (1.0, 1.0))
    return float(k * np.float64(b) ** np.float64(a))


def _snb_equations(k: float, f: float, c1: float, c2: float) -> Equations:
    """The SNB model's two equations in ``(alpha, beta)`` and their Jacobian, as ARX writes
    them (``ModelSNB.getObjectFunction`` and ``getDerivatives``)."""
    k, f = np.float64(k), np.float64(f)
    log, power = np.log, np.power

    def equations(x: float, y: float) -> tuple[float, float, float, float, float, float]:
        a, b = np.float64(x), np.float64(y)
        dividend = (1 - f) * (1 - b)
        f1 = k * f * power(b / (1 - dividend), a) * (((a * dividend) / (1 - dividend)) + 1) - c1
        f2 = (
            k
            * a
            * power(b, a)
            * (f * f)
            * (1 - b)
            / 2
            * power(1 - dividend, a + 2)
            * (2 - (1 - a) * dividend)
            - c2
        )
        val0 = (b - 1.0) * (f - 1.0)
        val1 = val0 - 1.0
        val2 = 1.0 - val0
        val3 = a * val0 / val1 - 1.0
        val4 = power(-b / val1, a)
        val6 = power(f, 2.0)
        val7 = power(b, a)
        val8 = val7 * val6 * k
        val9 = a * val8
        val10 = 2.0 * power(val2, a + 2.0)
        val11 = power(val1, 2.0)
        val13 = f * k
        val14 = f - 1.0
        val15 = a - 1.0
        val16 = b - 1.0
        val17 = val15 * val0
        val18 = val6 * k
        val19 = val17 + 2.0
        val20 = val18 * val19
        j11 = -val13 * log(-b / val1) * val3 * val4 - (val13 * val4 * val0) / val1
        j12 = a * val13 * (1.0 / val1 - (b * val14) / val11) * val3 * power(
            -b / val1, val15
        ) - val13 * val4 * ((a * val14) / val1 - (a * val16 * power(val14, 2.0)) / val11)
        j21 = (
            (val9 * log(val2) * val19 * val16) / val10
            - (val9 * power(val16, 2.0) * val14) / val10
            - (val7 * val20 * val16) / val10
            - (a * val7 * val18 * log(b) * val19 * val16) / val10
        )
        j22 = (
            -(val9 * val19) / val10
            - (power(a, 2.0) * power(b, val15) * val20 * val16) / val10
            - (a * val7 * val18 * val17) / val10
            - (a * val7 * val20 * (a + 2.0) * val0) / (2.0 * power(val2, a + 3.0))
        )
        return f1, f2, j11, j12, j21, j22

    return equations


def _newton_raphson(
    equations: Equations, start: tuple[float, float], *, theta_nonnegative: bool = False
) -> tuple[float, float]:
    """A root of ``equations`` as ARX's ``NewtonRaphson2D`` (0.0.1, ARX's configuration)
    finds it: from ``start``, then from each of :data:`START_POINTS`, Newton steps until both
    equations are within :data:`ACCURACY` of zero; a start is left after a step giving NaN
    (or a negative first coordinate, with ``theta_nonnegative``) or after 1,001 steps, and the
    last start is given one step. ``(nan, nan)`` when no start reaches a root."""
    starts = [start, *START_POINTS]
    for index, (x, y) in enumerate(starts):
        last = index == len(starts) - 1
        steps = 0
        while True:
            f1, f2, j11, j12, j21, j22 = equations(x, y)
            if abs(f1) <= ACCURACY and abs(f2) <= ACCURACY:
                return float(x), float(y)
            inverse = np.float64(1.0) / (j11 * j22 - j12 * j21)
            x = x - (j22 * inverse * f1 + -j12 * inverse * f2)
            y = y - (-j21 * inverse * f1 + j11 * inverse * f2)
            if last:
                break
            if theta_nonnegative and not x >= 0:
                break
            if math.isnan(x) or math.isnan(y) or steps >= STEPS_PER_START:
                break
            steps += 1
    return math.nan, math.nan


# Minka's approximations of the polygamma functions, as ARX ports them (``risk.Gamma``).
_DIGAMMA_1 = -0.57721566490153286060651209008240243104215933593992
_TRIGAMMA_1 = math.pi * math.pi / 6.0
_TETRAGAMMA_1 = -2.0 * 1.202056903159594285399738161511449990764986292
_S3, _S4, _S5, _S6, _S7 = 1 / 12, 1 / 120, 1 / 252, 1 / 240, 1 / 132
_B2, _B4, _B6, _B8, _B10 = 1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66


def digamma(x: np.ndarray) -> np.ndarray:
    """The digamma function of each element, by ARX's port of Minka's approximation:
    reflection below 0, a Taylor series up to 1e-6, recurrence up to 12, then de Moivre's
    expansion."""
    with np.errstate(all="ignore"):
        return _digamma(np.asarray(x, dtype=np.float64))


def _digamma(x: np.ndarray) -> np.ndarray:
    negative = x < 0
    z = np.where(negative, 1.0 - x, x)  # digamma(-x) = digamma(1 + x) + pi cot(pi x)
    regular = (z > 1e-6) & np.isfinite(z)
    z, result = _recurrence(z, regular, 12.0, lambda v: -1.0 / v)
    r = 1.0 / z
    result += np.log(z) - 0.5 * r
    r *= r
    result -= r * (_S3 - r * (_S4 - r * (_S5 - r * (_S6 - r * _S7))))
    out = np.where(regular, result, np.nan)
    small = (x > 0) & (x <= 1e-6)
    out = np.where(small, (_DIGAMMA_1 - 1.0 / x) + _TRIGAMMA_1 * x, out)
    out = np.where(x == 0, -np.inf, out)
    return np.where(negative, out + math.pi / np.tan(-math.pi * x), out)


def trigamma(x: np.ndarray, *, exact: bool = False) -> np.ndarray:
    """The trigamma function of each element, by ARX's port of Minka's approximation:
    reflection below 0, a Taylor series up to 1e-4, recurrence up to 8, then the asymptotic
    expansion, which ARX adds only from 12 on (so that below 12 its figure lacks the tail):
    ``exact`` adds it from 8 on, as Minka does."""
    with np.errstate(all="ignore"):
        return _trigamma(np.asarray(x, dtype=np.float64), exact)


def _trigamma(x: np.ndarray, exact: bool) -> np.ndarray:
    negative = x < 0
    z = np.where(negative, 1.0 - x, x)  # trigamma(-x) = -trigamma(1 + x) + (pi / sin(pi x))^2
    regular = (z > 1e-4) & np.isfinite(z)
    z, result = _recurrence(z, regular, 8.0, lambda v: 1.0 / (v * v))
    r = 1.0 / (z * z)
    tail = 0.5 * r + (1.0 + r * (_B2 + r * (_B4 + r * (_B6 + r * (_B8 + r * _B10))))) / z
    result = np.where(z >= (8.0 if exact else 12.0), result + tail, result)
    out = np.where(regular, result, np.nan)
    small = (x > 0) & (x <= 1e-4)
    out = np.where(small, (1.0 / (x * x)) + _TRIGAMMA_1 + _TETRAGAMMA_1 * x, out)
    out = np.where(x == 0, -np.inf, out)
    reflected = math.pi / np.sin(-math.pi * x)
    return np.where(negative, -out + reflected * reflected, out)


def _recurrence(
    z: np.ndarray, regular: np.ndarray, up_to: float, term: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """The recurrence of both polygamma functions, as Java's loop runs it on each element:
    while it is below ``up_to`` (at most ``up_to`` times, from above 0), add ``term`` of it to
    a sum starting at 0 and add 1 to it; the element reached and the sum. Both additions are
    made one after the other (``cumsum``), so that each value is rounded as in the loop. The
    elements not ``regular`` are left at ``up_to``."""
    steps = np.ones((z.size, int(up_to) + 1))
    steps[:, 0] = np.where(regular, z, up_to).ravel()
    reached = np.cumsum(steps, axis=1)  # z, z + 1, (z + 1) + 1, ...
    below = reached < up_to
    sums = np.cumsum(np.where(below, term(reached), 0.0), axis=1)[:, -1]
    last = reached[np.arange(z.size), below.sum(axis=1)]
    return last.reshape(z.shape), sums.reshape(z.shape)
