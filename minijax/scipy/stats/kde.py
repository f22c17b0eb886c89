"""Chapter 13 — ``jax.scipy.stats.gaussian_kde``: a density estimated from samples.

The estimate is a mixture of Gaussians, one centred on each (weighted) data
point, all with the data's covariance scaled by a bandwidth ``factor^2``
(Scott's rule ``neff^(-1/(d+4))`` by default). ``resample`` draws from that
mixture with ``minijax.random`` (chapter 13), and the estimator is a pytree,
so it passes through ``jit``; this module adds ``gaussian_kde`` to chapter 00's
``minijax.scipy.stats`` when imported, as later chapters do.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import random
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact
from minijax.scipy import linalg, special, stats
from minijax.tree_util import register_pytree_node_class

__all__ = ["gaussian_kde"]


def _kernel_sums(in_log: bool, points, weights, xi, precision):
    """``sum_j w_j N(xi_i; points_j, precision^-1)`` for every query ``xi_i`` (its
    log, through ``logsumexp``, with ``in_log``). Whitening by the Cholesky factor
    ``L`` of the precision turns each Mahalanobis distance into a plain one."""
    points, weights, xi, precision = promote_dtypes_inexact(points, weights, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = linalg.cholesky(precision, lower=True)
    points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)
    exponent = log_norm - 0.5 * jnp.sum(jnp.square(points[None, :, :] - xi[:, None, :]),
                                        axis=-1)  # (queries, data points)
    if in_log:
        return special.logsumexp(jnp.log(weights[None, :]) + exponent, axis=1)
    return jnp.sum(weights[None, :] * jnp.exp(exponent), axis=1)


def _weighted_cov(x, w):
    """``np.cov(x, aweights=w)``: the unbiased covariance of the rows of ``x`` under
    weights ``w``, ``sum_j w_j (x_j - m)(x_j - m)^T / (V1 - V2 / V1)`` with
    ``V1 = sum w``, ``V2 = sum w^2`` and ``m`` the weighted mean."""
    v1 = jnp.sum(w)
    centred = x - (jnp.sum(x * w, axis=1, keepdims=True) / v1)
    return jnp.dot(centred * w, centred.T) / (v1 - jnp.sum(w * w) / v1)


def _kernel_convolve(chol, norm, target, weights, mean):
    """``sum_j w_j N(mean; target_j, C)`` given ``chol = cho_factor(C)``."""
    diff = target - mean[:, None]
    alpha = linalg.cho_solve(chol, diff)
    return norm * jnp.sum(jnp.exp(-0.5 * jnp.sum(diff * alpha, axis=0)) * weights)


@register_pytree_node_class
class gaussian_kde:  # noqa: N801  (SciPy's name)
    """``gaussian_kde(dataset)`` with ``dataset`` of shape ``(d, n)`` (``n`` points in
    ``d`` dimensions); call it (or ``evaluate``/``pdf``) on points of shape ``(d, m)``."""
    __slots__ = ("neff", "dataset", "weights", "covariance", "inv_cov")

    def __init__(self, dataset, bw_method=None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if jnp.iscomplexobj(dataset):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact(dataset, jnp.asarray(weights))
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            dataset, = promote_dtypes_inexact(dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self.dataset, self.weights = dataset, weights
        self.neff = neff = 1 / jnp.sum(weights ** 2)  # the effective sample size
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = jnp.power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif np.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a "
                             "callable.")
        data_cov = jnp.atleast_2d(_weighted_cov(dataset, weights))
        self.covariance = data_cov * factor ** 2
        self.inv_cov = jnp.linalg.inv(data_cov) / factor ** 2

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def _reshape_points(self, points):
        if np.issubdtype(jnp.asarray(points).dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points

    def evaluate(self, points):
        """The estimated density at ``points`` (shape ``(d, m)``)."""
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_sums(False, self.dataset.T, self.weights, points.T, self.inv_cov)

    __call__ = pdf = evaluate

    def logpdf(self, x):
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_sums(True, self.dataset.T, self.weights, x.T, self.inv_cov)

    def integrate_gaussian(self, mean, cov):
        """The integral of the estimate times the Gaussian ``N(mean, cov)``."""
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = linalg.cho_factor(self.covariance + cov)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        return _kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low, high):
        """The probability mass of a 1-d estimate between ``low`` and ``high``."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of two estimates."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = linalg.cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        small, large = (self, other) if self.n < other.n else (other, self)
        per_point = jnp.stack([_kernel_convolve(chol, norm, large.dataset, large.weights,
                                                small.dataset[:, j]) for j in range(small.n)])
        return jnp.sum(per_point * small.weights)

    def resample(self, key, shape=()):
        """Draws from the estimate: a data point (by weight) plus Gaussian noise."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = random.multivariate_normal(eps_key, jnp.zeros(self.d, self.covariance.dtype),
                                         self.covariance, shape=shape,
                                         dtype=self.dataset.dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        raise NotImplementedError("only 1D box integrations are supported; use "
                                  "`integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")


stats.gaussian_kde = gaussian_kde
