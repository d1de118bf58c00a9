"""Go's ``sort.Slice`` (Go 1.26 ``sort/zsortfunc.go`` ``pdqsort_func``, the toolchain Karpenter v1.14.1's oracle is
built with), ported step by step so that elements of equal key end in the order Go leaves them.

``sort.Slice`` is not stable: up to 12 elements it is an insertion sort (stable), beyond that a pattern-defeating
quicksort whose swaps move equal elements around. It is deterministic (its only randomness, ``breakPatterns``, is an
xorshift seeded by the length), so one input order always gives one output order: the order in which the scheduler
(``Scheduler.add``, scheduler.go) meets its in-flight NodeClaims of equal pod count.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

__all__ = ["go_sort_slice"]

T = TypeVar("T")
_MASK = (1 << 64) - 1
_MAX_INSERTION = 12


def go_sort_slice(items: list[T], keys: Sequence[int]) -> None:
    """Sort ``items`` in place by ``keys`` (ascending, one key per item) exactly as ``sort.Slice(items, less)`` with
    ``less(i, j) = key(i) < key(j)``."""
    n = len(items)
    if n <= _MAX_INSERTION:  # insertionSort_func is stable: Python's stable sort gives the same order
        order = sorted(range(n), key=lambda i: keys[i])
        items[:] = [items[i] for i in order]
        return
    _Pdq(items, list(keys)).sort(0, n, n.bit_length())


class _Pdq:
    """``pdqsort_func`` and its helpers over ``items`` with the parallel ``keys``."""

    def __init__(self, items: list, keys: list[int]) -> None:
        self.items, self.keys = items, keys

    def less(self, i: int, j: int) -> bool:
        return self.keys[i] < self.keys[j]

    def swap(self, i: int, j: int) -> None:
        items, keys = self.items, self.keys
        items[i], items[j] = items[j], items[i]
        keys[i], keys[j] = keys[j], keys[i]

    def insertion(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap(self, a: int, b: int) -> None:
        first, hi = a, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(0, i, first)

    def sort(self, a: int, b: int, limit: int) -> None:
        """``pdqsort_func``, step by step."""
        balanced = partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion(a, b)
                return
            if limit == 0:
                self.heap(a, b)
                return
            if not balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == "decreasing":
                self.reverse(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = "increasing"
            if balanced and partitioned and hint == "increasing" and self.partial_insertion(a, b):
                return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                balanced = left >= threshold
                self.sort(a, mid, limit)
                a = mid + 1
            else:
                balanced = right >= threshold
                self.sort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(5):  # maxSteps
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < 50:  # shortestShifting
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        state = length
        modulus = 1 << length.bit_length()
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            state ^= (state << 13) & _MASK
            state ^= state >> 7
            state ^= (state << 17) & _MASK
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, str]:
        length = b - a
        swaps = [0]
        i, j, k = a + length // 4, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= 50:  # shortestNinther: Tukey's ninther
                i, j, k = (self.median(x - 1, x, x + 1, swaps) for x in (i, j, k))
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, "increasing"
        return j, "decreasing" if swaps[0] == 12 else "unknown"

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def reverse(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1
