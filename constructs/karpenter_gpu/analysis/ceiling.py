"""The dearest set of nodes a NodePool's ``spec.limits`` let Karpenter launch: an exact integer knapsack.

Karpenter v1.14.1 checks limits per launch: ``addToNewNodeClaim`` (``pkg/controllers/provisioning/scheduling/
scheduler.go``) keeps, with ``filterByRemainingResources``, only the instance types whose capacity is at most what is
left of *every* limited resource, and the pool's remaining resources are its limits minus the capacity of the nodes
it has (``updateRemainingResources``, ``subtractMax``). A node may therefore be launched while its capacity fits in
what the nodes before it left, so the node multisets a pool can reach, one launch after another, are exactly those
whose capacity sums stay within every limit (any order of such a multiset passes the check at each step, and no
other multiset does). The dearest one is

    maximise  sum_i x_i * price_i   subject to   sum_i x_i * size_i[r] <= limit[r] for every limited r,  x_i >= 0 integer

an integer knapsack with one dimension per limited resource. :func:`dearest_fill` solves it exactly:

1. An item with no size in any limited resource can be launched without end: the spend is unbounded (None).
2. Items dominated by another (no larger in any resource, no dearer) and resources implied by another
   (``size[r] / limit[r] <= size[s] / limit[s]`` for every item) are dropped; sizes are divided by their gcd.
3. One resource left: dynamic programming. Some optimum holds fewer than ``w_b`` items other than the best-ratio
   item ``b`` (among any ``w_b`` of them a subset's weight is a multiple of ``w_b`` and can be swapped for copies of
   ``b``), so the DP runs over weights ``0..min(C, (w_b - 1) * w_max)`` only and fills the rest with ``b``:
   O(n * w_b * w_max) time, independent of the limit (n items, sizes in gcd units). When that table would exceed
   ``DP_CELLS`` (sizes in fine units, e.g. memory limits in MiB whose gcd is small: tens of millions of cells, a
   minute), the branch and bound of step 4 solves the one resource instead when it proves its optimum within its
   node budget, and the table is built only when it does not and has at most ``DP_MAX_CELLS`` cells. Past that
   (a limit of hundreds of terabytes of memory against sizes in MiB: billions of cells, minutes), the branch and
   bound's best is given with its LP bound (``exact`` False), as in step 4.
4. Several resources: depth-first branch and bound over the items (best surrogate ratio first) with surrogate
   LP bounds (every limited resource alone, their normalised sum and pairwise mixes). The bound is concave in the
   count of the item being branched on, so the counts worth trying form one interval computed directly.
   Worst case O(prod_i (limit / size_i + 1)) nodes, like any exact integer programme; the bounds and the reductions
   keep it to a few hundred nodes on the catalog's types (see ``tests/test_ceiling.py`` for the timing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from functools import reduce
from typing import Sequence

from karpenter_gpu.perf import cached

__all__ = ["Fill", "dearest_fill"]


@dataclass(frozen=True)
class Fill:
    """The dearest launchable multiset: ``counts`` (item name, nodes) in input order, ``total`` their price.

    ``exact`` is False when the branch and bound stopped at its node budget before proving ``total`` optimal:
    then ``bound`` (>= the optimum, the LP bound) is the figure to quote as the ceiling, ``total`` what is reached.
    """

    total: Decimal
    counts: tuple[tuple[str, int], ...]
    exact: bool = True
    bound: Decimal | None = None

    @property
    def ceiling(self) -> Decimal:
        """The spend no launch sequence exceeds: the optimum when proven, else the LP bound."""
        return self.total if self.exact or self.bound is None else max(self.total, self.bound)


def _scale(values: Sequence[Decimal]) -> int:
    """10**d so that every value times it is an integer."""
    digits = max((max(0, -int(v.normalize().as_tuple().exponent)) for v in values if v), default=0)
    return 10 ** digits


#: Branch-and-bound nodes searched before the LP bound is quoted instead of a proven optimum.
BUDGET = 20_000
#: The largest one-resource table (items x weights) solved by dynamic programming; larger ones go to the branch
#: and bound.
DP_CELLS = 200_000
#: The largest one-resource table built when the branch and bound stops at its budget (about a second); past it the
#: LP bound is quoted.
DP_MAX_CELLS = 2_000_000


def dearest_fill_cached(items: tuple[tuple[str, Decimal, tuple[Decimal, ...]], ...],
                        limits: tuple[Decimal, ...]) -> Fill | None:
    """:func:`dearest_fill` of hashable arguments, remembered: pools of many environments often share their
    candidates and limits, and the answer (a frozen :class:`Fill`) depends on nothing else."""
    return _dearest_fill_memo(items, limits)


def dearest_fill(items: Sequence[tuple[str, Decimal, Sequence[Decimal]]],
                 limits: Sequence[Decimal], budget: int = BUDGET) -> Fill | None:
    """The highest-priced multiset of ``items`` (name, price, size per limited resource) within ``limits``.

    Every item must fit alone (``size <= limit`` in every resource; the caller drops the others, as
    ``filterByRemainingResources`` does). Returns None when the spend is unbounded (an item of positive price needs
    none of the limited resources), else the :class:`Fill` (total 0 and no counts when nothing is priced).
    """
    m = len(limits)
    price_scale = _scale([p for _, p, _ in items])
    size_scale = [_scale([it[2][r] for it in items] + [limits[r]]) for r in range(m)]
    prices = [int(p * price_scale) for _, p, _ in items]
    sizes = [tuple(int(s[r] * size_scale[r]) for r in range(m)) for _, _, s in items]
    caps = [int(limits[r] * size_scale[r]) for r in range(m)]
    for size in sizes:
        assert all(s <= c for s, c in zip(size, caps)), "items must fit alone"
    keep = [i for i in range(len(items)) if prices[i] > 0]
    if any(not any(sizes[i]) for i in keep):
        return None
    keep = _undominated(keep, prices, sizes)
    dims = _needed_dims(keep, sizes, caps)
    sub_sizes = [tuple(sizes[i][r] for r in dims) for i in keep]
    sub_caps = [caps[r] for r in dims]
    for j in range(len(dims)):  # gcd units
        g = reduce(math.gcd, (s[j] for s in sub_sizes), 0) or 1
        sub_caps[j] //= g
        sub_sizes = [tuple(v // g if k == j else v for k, v in enumerate(s)) for s in sub_sizes]
    sub_prices = [prices[i] for i in keep]
    bound: int | None = None
    if not keep:
        counts: list[int] = []
        total = 0
    elif len(dims) == 1:
        total, counts, bound = _one_resource(sub_prices, sub_sizes, sub_caps, budget)
    else:
        total, counts, bound = _branch_and_bound(sub_prices, sub_sizes, sub_caps, budget)
    chosen = {keep[k]: n for k, n in enumerate(counts) if n}
    with localcontext() as exact:  # a price of many digits times a count near a huge limit: beyond 28 digits
        exact.prec = 200
        exact_total = sum((items[i][1] * n for i, n in chosen.items()), Decimal(0))  # the catalog's own digits
        assert exact_total * price_scale == total
    return Fill(exact_total, tuple((items[i][0], chosen[i]) for i in sorted(chosen)),
                exact=bound is None, bound=None if bound is None else Decimal(bound) / price_scale)


def _undominated(keep: list[int], prices: list[int], sizes: list[tuple[int, ...]]) -> list[int]:
    """Drop an item when another is no larger in any resource and no cheaper (the first of equals stays)."""
    out = []
    for j in keep:
        dominated = any(i != j and prices[i] >= prices[j] and all(a <= b for a, b in zip(sizes[i], sizes[j]))
                        and (prices[i] > prices[j] or sizes[i] != sizes[j] or i < j) for i in keep)
        if not dominated:
            out.append(j)
    return out


def _needed_dims(keep: list[int], sizes: list[tuple[int, ...]], caps: list[int]) -> list[int]:
    """The resources that can bind: not zero for every item, and not implied by another resource
    (``size_i[r] * cap[s] <= size_i[s] * cap[r]`` for every item: then ``s`` within its limit keeps ``r`` within
    its)."""
    dims = [r for r in range(len(caps)) if any(sizes[i][r] for i in keep)]
    changed = True
    while changed and len(dims) > 1:
        changed = False
        for r in dims:
            if any(s != r and all(sizes[i][r] * caps[s] <= sizes[i][s] * caps[r] for i in keep) for s in dims):
                dims.remove(r)
                changed = True
                break
    return dims


def _one_resource(prices: list[int], sizes: list[tuple[int, ...]], caps: list[int], budget: int
                  ) -> tuple[int, list[int], int | None]:
    """One limited resource: the DP of :func:`_one_dimension` when its table is at most ``DP_CELLS``, else branch
    and bound when it proves its optimum within ``budget`` nodes (fine-grained sizes, such as memory in MiB, make
    the DP table millions of cells), else the DP after all when its table is at most ``DP_MAX_CELLS``, else the
    branch and bound's best with its bound (the third item: None when the total is proven optimal)."""
    weights = [s[0] for s in sizes]
    cells = _dp_cells(prices, weights, caps[0])
    if cells > DP_CELLS:
        total, counts, bound = _branch_and_bound(prices, sizes, caps, budget)
        if bound is None or cells > DP_MAX_CELLS:
            return total, counts, bound
    total, counts = _one_dimension(prices, weights, caps[0])
    return total, counts, None


def _best_ratio(prices: list[int], weights: list[int]) -> int:
    """The item of the best price per unit, exactly (cross-multiplied); ties: the smaller item."""
    best = 0
    for i in range(1, len(prices)):
        if prices[i] * weights[best] > prices[best] * weights[i] or (
                prices[i] * weights[best] == prices[best] * weights[i] and weights[i] < weights[best]):
            best = i
    return best


def _horizon(prices: list[int], weights: list[int], cap: int) -> int:
    return min(cap, (weights[_best_ratio(prices, weights)] - 1) * max(weights))


def _dp_cells(prices: list[int], weights: list[int], cap: int) -> int:
    """The size of :func:`_one_dimension`'s table."""
    return len(prices) * (_horizon(prices, weights, cap) + 1)


def _one_dimension(prices: list[int], weights: list[int], cap: int) -> tuple[int, list[int]]:
    """Unbounded knapsack on one resource, exact, over weights up to ``(w_b - 1) * w_max`` (see the module doc)."""
    n = len(prices)
    best = _best_ratio(prices, weights)
    horizon = _horizon(prices, weights, cap)
    value = [0] * (horizon + 1)
    choice = [-1] * (horizon + 1)
    for c in range(1, horizon + 1):
        value[c], choice[c] = value[c - 1], -1
        for i in range(n):
            w = weights[i]
            if w <= c and value[c - w] + prices[i] > value[c]:
                value[c], choice[c] = value[c - w] + prices[i], i
    top, at = -1, 0
    for c in range(horizon + 1):
        total = value[c] + (cap - c) // weights[best] * prices[best]
        if total > top:
            top, at = total, c
    counts = [0] * n
    counts[best] += (cap - at) // weights[best]
    c = at
    while c > 0:
        i = choice[c]
        if i < 0:
            c -= 1
        else:
            counts[i] += 1
            c -= weights[i]
    return top, counts


def _surrogate_bound(w: Sequence[float], prices: Sequence[int], sizes: Sequence[tuple[int, ...]],
                     caps: Sequence[int]) -> float:
    """The LP bound of the knapsack with its constraints summed with multipliers ``w``."""
    load = [sum(a * b for a, b in zip(w, s)) for s in sizes]
    if any(v <= 0 for v in load):
        return math.inf
    return sum(a * b for a, b in zip(w, caps)) * max(p / v for p, v in zip(prices, load))


def _weights(prices: list[int], sizes: list[tuple[int, ...]], caps: list[int]) -> list[list[float]]:
    """Surrogate multipliers: each resource alone, and the multipliers that make the surrogate bound smallest at
    the root (the LP optimum, by surrogate duality), found by ternary searches along pairs of resources (the bound
    is quasi-convex in the multipliers)."""
    m = len(caps)
    out = [[1.0 if k == r else 0.0 for k in range(m)] for r in range(m)]
    w = [1.0 / c for c in caps]
    for _ in range(3 if m > 2 else 1):
        for r in range(m):
            for s in range(r + 1, m):
                total = w[r] * caps[r] + w[s] * caps[s]

                def at(t: float, base: list[float] = w, r: int = r, s: int = s, total: float = total) -> list[float]:
                    v = list(base)
                    v[r], v[s] = t * total / caps[r], (1 - t) * total / caps[s]
                    return v

                lo, hi = 0.0, 1.0
                for _ in range(60):
                    a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
                    if _surrogate_bound(at(a), prices, sizes, caps) <= _surrogate_bound(at(b), prices, sizes, caps):
                        hi = b
                    else:
                        lo = a
                w = at((lo + hi) / 2)
        out.append(list(w))
    return out


def _branch_and_bound(prices: list[int], sizes: list[tuple[int, ...]], caps: list[int],
                      budget: int) -> tuple[int, list[int], int | None]:
    """Multi-resource knapsack by depth-first branch and bound (see the module doc): (best, counts, None) when
    proven optimal within ``budget`` nodes, else (best found, counts, the root LP bound rounded up)."""
    n, m = len(prices), len(caps)
    ws = _weights(prices, sizes, caps)
    surrogate = ws[-1]
    order = sorted(range(n), key=lambda i: -prices[i] / sum(w * s for w, s in zip(surrogate, sizes[i])))
    P = [prices[i] for i in order]
    S = [sizes[i] for i in order]
    # dens[w][k]: the best price per surrogate unit among items k.. (inf when one needs none of w's resources)
    dens: list[list[float]] = []
    for w in ws:
        row = [0.0] * (n + 1)
        for k in range(n - 1, -1, -1):
            load = sum(a * b for a, b in zip(w, S[k]))
            row[k] = max(row[k + 1], math.inf if load == 0 else P[k] / load)
        dens.append(row)
    loads = [[sum(a * b for a, b in zip(w, S[k])) for k in range(n)] for w in ws]
    best_total = -1
    best_counts: list[int] = [0] * n
    counts = [0] * n
    nodes = 0

    def search(k: int, rem: list[int], value: int) -> None:
        nonlocal best_total, best_counts, nodes
        nodes += 1
        if nodes > budget:
            return
        if value > best_total:
            best_total, best_counts = value, counts.copy()
        if k == n:
            return
        top = min(rem[r] // S[k][r] for r in range(m) if S[k][r])
        lo, hi = 0, top
        # value + c*P[k] + (w.rem - c*w.S[k]) * dens[w][k+1] must reach best_total + 1 for every w: one interval
        for wi, w in enumerate(ws):
            d = dens[wi][k + 1]
            if d == math.inf:
                continue
            base = value + sum(a * b for a, b in zip(w, rem)) * d
            slope = P[k] - loads[wi][k] * d
            need = best_total + 1 - base
            tol = 1e-9 * (abs(base) + abs(best_total) + 1)
            if abs(slope) <= 1e-12 * (P[k] + 1):
                if need > tol:
                    return
                continue
            edge = need / slope
            if slope > 0:
                lo = max(lo, math.floor(edge - tol / slope) - 1)
            else:
                hi = min(hi, math.ceil(edge - tol / slope) + 1)
            if lo > hi:
                return
        for c in range(max(lo, 0), hi + 1)[::-1]:
            if nodes > budget:  # out of budget: stop here too (a huge limit makes this interval billions long)
                break
            counts[k] = c
            search(k + 1, [rem[r] - c * S[k][r] for r in range(m)], value + c * P[k])
        counts[k] = 0

    search(0, list(caps), 0)
    out = [0] * n
    for pos, i in enumerate(order):
        out[i] = best_counts[pos]
    if nodes <= budget:
        return best_total, out, None
    root = min(_surrogate_bound(w, P, S, caps) for w in ws)
    return best_total, out, max(best_total, math.ceil(root * (1 + 1e-9)))


_dearest_fill_memo = cached(maxsize=4096)(dearest_fill)
