"""Where the noise comes from: a seeded generator, or a floating-point-safe sampler.

Adding ``numpy``'s Laplace draws to floats is the textbook mechanism, and Mironov (2012, "On
Significance of the Least Significant Bits for Differential Privacy", CCS) showed that its
floating-point outputs leak the value they hide: which doubles can come out depends on the
input. Holohan and Braghin (2021, "Secure Random Sampling in Differential Privacy", ESORICS)
show the same for common libraries and how to sample safely. Two sources, one interface:

- :class:`SeededLaplace` (the default): ``numpy``'s PCG64 generator; the same seed gives the
  same noise, for research and tests. Not for a release whose noise must hide the values
  from someone who studies the bits.
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


class NoiseSource(Protocol):
    """Adds Laplace noise to values and shuffles rows."""

    @property
    def description(self) -> str:
        """What the report says of the source (never a seed)."""
        ...

    def perturb(self, values: np.ndarray, scales: np.ndarray) -> np.ndarray:
        """``values`` (finite floats) each plus Laplace noise of its ``scale`` (0: none)."""
        ...

    def permutation(self, n: int) -> np.ndarray:
        """A random order of ``n`` rows."""
        ...


@dataclass
class SeededLaplace:
    """``numpy``'s PCG64 generator: reproducible from ``seed`` (None: fresh entropy)."""

    seed: int | None = None
    generator: np.random.Generator = field(init=False, repr=False)

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
        self.generator = np.random.default_rng(self.seed)

    @property
    def description(self) -> str:
        how = "seeded by the caller (reproducible from that seed, not recorded here)"
        return f"numpy PCG64 Laplace, {how if self.seed is not None else 'fresh entropy'}"

    def perturb(self, values: np.ndarray, scales: np.ndarray) -> np.ndarray:
        noise = self.generator.laplace(0.0, 1.0, size=len(values)) * scales
        return values + noise

    def permutation(self, n: int) -> np.ndarray:
        return self.generator.permutation(n)


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

    def perturb(self, values: np.ndarray, scales: np.ndarray) -> np.ndarray:
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

    def permutation(self, n: int) -> np.ndarray:
        return np.random.default_rng(secrets.randbits(128)).permutation(n)


def noise_source(seed: int | None, secure: bool) -> NoiseSource:
    """The source a call asks for: OpenDP when ``secure``, else numpy seeded by ``seed``."""
    if not isinstance(secure, (bool, np.bool_)):
        raise InvalidParameterError(f"secure must be True or False, got {secure!r}")
    if secure:
        if seed is not None:
            raise InvalidParameterError(
                "seed= and secure=True exclude each other: secure noise comes from the system's "
                "randomness and cannot be replayed; drop seed= for a release, or secure=True "
                "for reproducible research noise"
            )
        return SecureLaplace()
    return SeededLaplace(seed)
