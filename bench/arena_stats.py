"""The arena's statistics: a score's Wilson interval and the sequential probability ratio test from Elo bounds.

The Wilson score interval is the standard one for a binomial proportion (Wilson 1927), applied to the
score with a draw counted as half a win; its normal quantile comes from the standard library
(:class:`statistics.NormalDist`). Neither SciPy nor statsmodels (which have it as a function) is installed with the
project, and no installed package has it, so it is the one formula below. The SPRT is the generalised sequential
probability ratio test used by chess engine projects (fishtest, OpenBench): the log-likelihood ratio of the
trinomial results under the normal approximation, ``LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var)``, where ``s`` is
the mean score per game, ``var`` its per-game variance, and ``s0``, ``s1`` the expected scores of the logistic Elo
bounds ``elo0``, ``elo1`` (``1 / (1 + 10^(-elo / 400))``); the test accepts H1 once ``LLR >= log((1 - beta) /
alpha)`` and H0 once ``LLR <= log(beta / (1 - alpha))`` (Wald's bounds). No package on PyPI computes this from Elo
bounds (the registry's ``sprt`` and ``sequential-analysis`` test a Bernoulli or normal parameter, not Elo).
"""

from __future__ import annotations

import math
import statistics

Z95 = statistics.NormalDist().inv_cdf(0.975)
"""The normal quantile of a two-sided 95 % interval."""


def wilson_interval(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: ``score`` points (a draw counting ½) out of ``games``.

    Returns ``(low, high)`` as fractions in ``[0, 1]``; ``(0, 1)`` for no games.
    """
    if games <= 0:
        return 0.0, 1.0
    p = score / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_score(elo: float) -> float:
    """The expected score of a side ``elo`` logistic Elo points stronger: ``1 / (1 + 10^(-elo / 400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for trinomial results (see the module
    docstring); 0 while the results cannot estimate a variance (no win or no loss yet counts as half a game of each,
    as fishtest regularises)."""
    n = wins + draws + losses
    if n == 0:
        return 0.0
    won, drawn, lost = float(wins), float(draws), float(losses)
    if won == 0 or lost == 0:  # regularise, so that a first run of wins does not make the variance vanish
        won, lost, n = won + 0.5, lost + 0.5, n + 1
    s = (won + drawn / 2) / n
    var = (won + drawn / 4) / n - s * s
    if var <= 0:
        return 0.0
    s0, s1 = elo_score(elo0), elo_score(elo1)
    return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds ``(lower, upper)`` on the LLR for error rates ``alpha`` (false H1) and ``beta`` (false H0)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
