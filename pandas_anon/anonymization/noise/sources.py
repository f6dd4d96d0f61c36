"""Where the noise comes from: a seeded generator, or a floating-point-safe sampler.

Adding ``numpy``'s Laplace draws to floats is the textbook mechanism, and Mironov (2012, "On
Significance of the Least Significant Bits for Differential Privacy", CCS) showed that its
floating-point outputs leak the value they hide: which doubles can come out depends on the
input. Holohan and Braghin (2021, "Secure Random Sampling in Differential Privacy", ESORICS)
show the same for common libraries and how to sample safely. Two sources, one interface:

- :class:`SeededLaplace` (the default): ``numpy``'s Philox counter-based generator; the same
  seed gives the same noise, for research and tests. Each row's noise is drawn at its own
  place in the stream (the row's position in the frame), so a row gets the same noise
  however the frame is cut into pieces: a Dask frame's partitions, drawn apart on different
  workers, get exactly the noise of the whole frame drawn at once. Not for a release whose
  noise must hide the values from someone who studies the bits.
- :class:`SecureLaplace` (``secure=True``): OpenDP's Laplace mechanism (``make_laplace``
  on a vector of floats), which samples the noise exactly and rounds the noisy value to a
  grid, as Mironov proposes, from the operating system's randomness; about 25 µs a value.
  OpenDP is an optional dependency (``pip install pandas-anon[dp]``, a 47 MB wheel with one
  dependency of its own); diffprivlib, the other vetted library, did not import with scikit-learn 1.9.

Neither is seeded from anything a report records: a report carrying the seed would let
anyone who reads it draw the noise again and subtract it. Not recording the seed is not
enough, though: someone who holds the originals (the attacker of the paper) can try seeds
until the release comes out again, which for a small seed takes a second. Seeded noise is
for research; a release takes ``secure=True``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from pandas_anon.errors import InvalidParameterError, MissingDependencyError
from pandas_anon.params import flag


class NoiseSource(Protocol):
    """Adds Laplace noise to values and orders rows at random."""

    @property
    def description(self) -> str:
        """What the report says of the source (never a seed)."""
        ...

    def perturb(
        self, values: np.ndarray, scales: np.ndarray, positions: np.ndarray, stream: int
    ) -> np.ndarray:
        """``values`` (finite floats) each plus Laplace noise of its ``scale`` (0: none),
        the value at row ``positions`` of the frame, drawn from ``stream`` (one per column
        noised)."""
        ...

    def order_keys(self, positions: np.ndarray) -> np.ndarray:
        """A random key in [0, 1) for each of the rows at ``positions``: the rows sorted by
        their keys are in a random order."""
        ...


#: The stream of :meth:`SeededLaplace.order_keys` (the noise of column j is stream j).
ORDER_STREAM = 2**32


@dataclass
class SeededLaplace:
    """``numpy``'s Philox generator, the draw of row i of stream s at counter i of the key
    derived from (``seed``, s): reproducible from ``seed`` (None: fresh entropy, drawn once
    for the source, so that every piece of a frame reads the same streams)."""

    seed: int | None = None
    _key: int = field(init=False, repr=False, default=0)

    def __post_init__(self) -> None:
        if self.seed is not None and (
            isinstance(self.seed, (bool, np.bool_))
            or not isinstance(self.seed, (int, np.integer))
            or self.seed < 0
        ):
            raise InvalidParameterError(
                f"seed must be a whole number of at least 0 such as 42, or None for fresh "
                f"entropy, got "
                f"{self.seed!r}"
            )
        self._key = int(self.seed) if self.seed is not None else secrets.randbits(128)

    @property
    def description(self) -> str:
        how = "seeded by the caller (reproducible from that seed, not recorded here)"
        return f"numpy Philox Laplace, {how if self.seed is not None else 'fresh entropy'}"

    def perturb(
        self, values: np.ndarray, scales: np.ndarray, positions: np.ndarray, stream: int
    ) -> np.ndarray:
        return values + _laplace(self.uniforms(positions, stream)) * scales

    def order_keys(self, positions: np.ndarray) -> np.ndarray:
        return self.uniforms(positions, ORDER_STREAM)

    def uniforms(self, positions: np.ndarray, stream: int) -> np.ndarray:
        """The uniform draw in [0, 1) at each of ``positions`` (row numbers) of ``stream``:
        the stream's run from the first position to the last, drawn once."""
        positions = np.asarray(positions, dtype=np.int64)
        if not len(positions):
            return np.zeros(0)
        first, last = int(positions.min()), int(positions.max())
        key = np.random.SeedSequence([self._key, stream]).generate_state(2, np.uint64)
        generator = np.random.Generator(
            np.random.Philox(key=key, counter=[first // _PER_COUNTER, 0, 0, 0])
        )
        skip = first % _PER_COUNTER  # a counter gives four draws: those before ``first``
        run = generator.random(last - first + 1 + skip)[skip:]
        return run[positions - first]


#: Draws per increment of Philox's counter (four 64-bit words, one double each).
_PER_COUNTER = 4


def _laplace(uniform: np.ndarray) -> np.ndarray:
    """Standard Laplace draws from uniform draws in [0, 1), by the inverse of the Laplace
    distribution function (numpy's own way: ``log(2u)`` below one half, ``-log(2 - 2u)``
    from it); a draw of exactly 0 is read as the smallest positive double's neighbour,
    2^-1074, rather than drawn again."""
    safe = np.maximum(uniform, np.finfo(float).smallest_subnormal)
    below = safe < 0.5
    return np.where(below, np.log(np.where(below, 2 * safe, 1.0)), -np.log(2 - 2 * safe))


@dataclass
class SecureLaplace:
    """OpenDP's floating-point-safe Laplace mechanism, from the system's randomness."""

    description: str = "OpenDP make_laplace (exact sampling, rounded to a grid; system randomness)"
    _space: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        try:
            import opendp.prelude as dp
        except ImportError as error:
            raise MissingDependencyError(
                "secure=True draws its noise with OpenDP, which is not installed; "
                "pip install 'pandas-anon[dp]' (or opendp), or pass seed= for research noise"
            ) from error
        dp.enable_features("contrib")  # OpenDP's opt-in for mechanisms not yet vetted there
        self._dp = dp
        self._space = (
            dp.vector_domain(dp.atom_domain(T=float, nan=False)),
            dp.l1_distance(T=float),
        )

    def perturb(
        self, values: np.ndarray, scales: np.ndarray, positions: np.ndarray, stream: int
    ) -> np.ndarray:
        """The system's randomness has no positions: ``positions`` and ``stream`` are not
        read, and every draw is fresh."""
        out = values.astype(float, copy=True)
        distinct, group = np.unique(scales, return_inverse=True)
        for at, scale in enumerate(distinct):
            if scale <= 0:
                continue
            chosen = np.flatnonzero(group == at)
            domain, metric = self._space
            mechanism = self._dp.m.make_laplace(domain, metric, scale=float(scale))
            out[chosen] = mechanism(out[chosen].tolist())
        return out

    def order_keys(self, positions: np.ndarray) -> np.ndarray:
        return np.random.default_rng(secrets.randbits(128)).random(len(positions))


def random_order(source: NoiseSource, positions: np.ndarray) -> np.ndarray:
    """A random order of the rows at ``positions``: their :meth:`~NoiseSource.order_keys`
    sorted (a stable sort: equal keys, which a 53-bit draw makes rare, keep their order)."""
    return np.argsort(source.order_keys(positions), kind="stable")


def noise_source(seed: int | None, secure: bool) -> NoiseSource:
    """The source a call asks for: OpenDP when ``secure``, else numpy seeded by ``seed``."""
    flag(secure, "secure")
    if secure:
        if seed is not None:
            raise InvalidParameterError(
                "seed= and secure=True exclude each other: secure noise comes from the system's "
                "randomness and cannot be replayed; drop seed= for a release, or secure=True "
                "for reproducible research noise"
            )
        return SecureLaplace()
    return SeededLaplace(seed)
