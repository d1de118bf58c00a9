"""The exact limit ceiling (analysis.ceiling.dearest_fill) against brute force, and its speed.

Karpenter v1.14.1 ``filterByRemainingResources`` (pkg/controllers/provisioning/scheduling/scheduler.go) launches a
type only while its capacity fits what is left of every limited resource: the reachable multisets are exactly those
within every limit, so the ceiling is the dearest of them.
"""

from __future__ import annotations

import itertools
import time
from decimal import Decimal as D

from hypothesis import given, settings, strategies as st

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.ceiling import dearest_fill


def brute(items, limits):
    ranges = [range(min(int(limits[r] // s[r]) for r in range(len(limits)) if s[r]) + 1) for _, _, s in items]
    best = D(0)
    for xs in itertools.product(*ranges):
        if all(sum(x * it[2][r] for x, it in zip(xs, items)) <= limits[r] for r in range(len(limits))):
            best = max(best, sum(x * it[1] for x, it in zip(xs, items)))
    return best


def _exact_fill_within_limits(items, limits):
    """dearest_fill's answer, proven exact, whose nodes fit every limit."""
    fill = dearest_fill(items, limits)
    assert fill is not None and fill.exact
    sizes = {name: size for name, _, size in items}
    for r, limit in enumerate(limits):
        assert sum(sizes[n][r] * k for n, k in fill.counts) <= limit
    return fill


@st.composite
def problems(draw):
    m = draw(st.integers(1, 3))
    limits = [D(draw(st.integers(1, 16))) for _ in range(m)]
    n = draw(st.integers(1, 4))
    items = []
    for i in range(n):
        size = [D(draw(st.integers(0, int(limit)))) for limit in limits]
        if not any(size):
            size[0] = D(1)
        items.append((f"t{i}", D(draw(st.integers(0, 60))) / 8, size))
    return items, limits


@settings(max_examples=300, deadline=None)
@given(problems())
def test_matches_brute_force(problem):
    items, limits = problem
    fill = _exact_fill_within_limits(items, limits)
    assert fill.total == brute(items, limits)
    by_name = {name: (price, size) for name, price, size in items}
    assert sum(by_name[n][0] * k for n, k in fill.counts) == fill.total


def test_never_rounds_past_the_limit():
    # 8-GPU nodes at 10/h, 1-GPU nodes at 1/h, limit 50: 6 x 8 + 2 x 1 = 62, never 7 x 8 (56 GPUs)
    fill = dearest_fill([("big", D(10), [D(8)]), ("small", D(1), [D(1)])], [D(50)])
    assert fill == type(fill)(D(62), (("big", 6), ("small", 2)))


def test_a_type_needing_no_limited_resource_is_unbounded():
    assert dearest_fill([("gpu", D(1), [D(1)]), ("cpu-only", D(1), [D(0)])], [D(4)]) is None
    # ...unless it costs nothing
    assert dearest_fill([("gpu", D(1), [D(1)]), ("free", D(0), [D(0)])], [D(4)]).total == 4


def test_cpu_and_gpu_limits_together():
    # A: 1 GPU 64 cpu 4/h, B: 8 GPU 96 cpu 12/h; 16 GPUs, 200 cpu: 3 x A = 192 cpu (12/h); 1 B + 1 A = 9 GPUs
    # 160 cpu (16/h); 2 B = 192 cpu (24/h) -> 24
    fill = dearest_fill([("A", D(4), [D(1), D(64)]), ("B", D(12), [D(8), D(96)])], [D(16), D(200)])
    assert fill.total == D(24) and fill.counts == (("B", 2),)


def test_fast_at_ten_thousand_gpus():
    """One pool of 20 catalog GPU types under nvidia.com/gpu 10000 and cpu 100000 (the figure in the report)."""
    types = [t for t in default_catalog().types if t.gpus and t.price][:20]
    items = [(t.name, t.price, [D(t.gpus), D(t.labels["karpenter.k8s.aws/instance-cpu"])]) for t in types]
    start = time.perf_counter()
    fill = dearest_fill(items, [D(10000), D(100000)])
    elapsed = time.perf_counter() - start
    print(f"\n20 types, 10000 GPUs / 100000 cpu: {elapsed * 1000:.1f} ms, exact={fill.exact}, {fill.counts}")
    assert elapsed < 2.0
    gpus = sum(k * next(t.gpus for t in types if t.name == n) for n, k in fill.counts)
    assert gpus <= 10000
    start = time.perf_counter()
    one = dearest_fill([(n, p, s[:1]) for n, p, s in items], [D(10000)])
    print(f"GPU limit only: {(time.perf_counter() - start) * 1000:.1f} ms")
    assert one.exact and one.total >= fill.total


@st.composite
def fine_grained(draw):
    """One resource in fine units (memory in MiB: sizes of thousands, limits of a few nodes): past the DP's table."""
    n = draw(st.integers(2, 6))
    items = [(f"t{i}", D(draw(st.integers(1, 4000))) / 1000, [D(draw(st.integers(300, 5000)))]) for i in range(n)]
    limit = D(max(s[0] for _, _, s in items) * draw(st.integers(1, 4)) + draw(st.integers(0, 999)))
    return items, [limit]


@settings(max_examples=150, deadline=None)
@given(fine_grained())
def test_fine_grained_single_resource_matches_the_dp(problem):
    # filterByRemainingResources on a memory limit: the branch and bound taken for large tables finds the DP's optimum
    from karpenter_gpu.analysis import ceiling

    items, limits = problem
    fill = _exact_fill_within_limits(items, limits)
    scale = 1000
    dp_total, _ = ceiling._one_dimension([int(p * scale) for _, p, _ in items], [int(s[0]) for _, _, s in items],
                                         int(limits[0]))
    assert fill.total * scale == dp_total


def test_one_resource_in_fine_units_is_not_a_huge_table(monkeypatch):
    """A memory limit over allocatable memory in MiB (sizes with a small gcd): the dynamic programme's table would
    hold millions of cells here (0.5 s), and tens of millions at a 10,000 GiB limit (a minute); the branch and
    bound answers in milliseconds, exactly, and gives what the table gives."""
    from karpenter_gpu.analysis import ceiling

    mib = "karpenter.k8s.aws/instance-memory"
    limit = [D(400 * 1024)]
    items = [(t.name, t.price, [D(t.labels[mib]) - 7 * t.gpus - 101])  # minus a reservation: not round
             for t in default_catalog().types if t.gpus and t.price and D(t.labels[mib]) < limit[0]]
    searched = []
    real = ceiling._branch_and_bound
    monkeypatch.setattr(ceiling, "_branch_and_bound", lambda *a: searched.append(a) or real(*a))
    start = time.process_time()
    fill = dearest_fill(items, limit)
    assert time.process_time() - start < 0.2 and fill.exact and searched
    assert sum(k * size[0] for n, k in fill.counts for name, _, size in items if name == n) <= limit[0]
    monkeypatch.setattr(ceiling, "DP_CELLS", 10**9)  # the table, however large
    searched.clear()
    assert dearest_fill(items, limit) == fill and not searched


def test_a_huge_limit_stops_at_the_node_budget():
    """A NodePool limit far beyond any fleet (``pods: 1000Gi``, 1.1e12 pods; found by the oracle's schema draws):
    one node of the branch and bound may try billions of counts of an item, so the search stops at its budget in
    the middle of that interval too, and the dynamic programme (whose table does not grow with the limit) answers."""
    items = [("small", D("0.95"), [D(234)]), ("big", D("28.51328"), [D(737)])]
    limit = [D(1000 * 2**30)]
    start = time.process_time()
    fill = dearest_fill(items, limit, budget=2000)
    assert time.process_time() - start < 5 and fill is not None and fill.exact
    assert sum(k * (234 if n == "small" else 737) for n, k in fill.counts) <= limit[0]


def test_a_price_of_many_digits_times_a_huge_count_stays_exact():
    """A price with 15 decimals (a VM-overhead-adjusted or overlaid price) times a count near a limit of
    863,565,228,548,292 GPUs has more digits than Decimal's default 28: the total is exact (found by the oracle)."""
    fill = dearest_fill([("p", D("42.724799999999995"), [D(8)])], [D("863565228548292.608")])
    assert fill.counts == (("p", 107945653568536),)
    assert fill.total == D("4611956459584986.353071732157320") and fill.exact  # 42724799999999995 * 107945653568536


def test_a_huge_memory_limit_quotes_the_bound_when_the_table_is_billions_of_cells():
    """``limits: {memory: +683T}`` against sizes in MiB (scheduler family, seed 403353796 case 1407): the branch
    and bound stops at its budget 0.004% below its LP bound and the exact table would be 3.3 billion cells
    (minutes). The answer is the branch and bound's best with the bound quoted as the ceiling, in milliseconds."""
    mib = 2**20
    items = [(f"t{i}", D(p) / 10**6, [D(w * mib)]) for i, (p, w) in enumerate(
        [(828000, 30251), (2520000, 30310), (4721000, 181862), (14256640, 363724), (21957642, 1091174)])]
    limit = [D(650965583 * mib)]
    start = time.process_time()
    fill = dearest_fill(items, limit)
    assert time.process_time() - start < 2 and fill is not None and not fill.exact
    assert fill.bound is not None and fill.total <= fill.ceiling == fill.bound <= fill.total * D("1.0001")
    assert sum(k * int(items[int(n[1:])][2][0]) for n, k in fill.counts) <= limit[0]
