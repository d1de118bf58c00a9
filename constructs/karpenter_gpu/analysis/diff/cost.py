"""What a change does to GPU capacity and worst-case spend, per environment and NodePool, as the simulator sees
each side (:func:`~karpenter_gpu.analysis.simulator.simulate_pools`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Mapping

from karpenter_gpu.analysis.catalog import Catalog, default_catalog
from karpenter_gpu.analysis.diff.admission import Admitted, admit
from karpenter_gpu.analysis.diff.read import Key, Side
from karpenter_gpu.analysis.simulator import PoolReport, price_basis, simulate_pools
from karpenter_gpu.k8s.aws_facts import AwsFacts
from karpenter_gpu.k8s.controller_settings import ControllerSettings, environment_settings
from karpenter_gpu.apiserver.conformance import Crds
from karpenter_gpu.k8s.scheduling import Requirements
from karpenter_gpu.upstream import KARPENTER_VALUES_FILE

EVENTUALLY_CONSISTENT = ("limits are eventually consistent: Karpenter counts launched capacity after the fact, so a "
                         "pool can overrun its limit during fast scale-out (ceilings are what the limit allows, not a "
                         "hard cap)")


@dataclass(frozen=True)
class Choice:
    """A pool's cheapest candidate (``OrderByPrice``) and the offering that price is for."""

    instance: str
    offering: str | None
    price: Decimal
    #: A spot or reserved offering shown at the catalog's on-demand list price (no overlay and no AWS facts priced
    #: it: :attr:`~karpenter_gpu.k8s.offerings.OfferingPrice.on_demand_stand_in`).
    list_price: bool = False


@dataclass(frozen=True)
class PoolCost:
    """What a change does to one NodePool's capacity and spend.

    ``added``/``removed`` map a capacity type to the instance types the pool admits with an offering of that
    type after/before but not before/after. ``ceiling_*`` is the simulator's ``worst_case_hourly`` (None:
    unbounded or not priced, see ``unbounded_*``); ``present_*`` False when the pool is absent on that side.
    """

    pool: str
    present_before: bool
    present_after: bool
    added: Mapping[str, tuple[str, ...]]
    removed: Mapping[str, tuple[str, ...]]
    ceiling_before: Decimal | None
    ceiling_after: Decimal | None
    first_before: Choice | None
    first_after: Choice | None
    unbounded_before: bool
    unbounded_after: bool


@dataclass(frozen=True)
class EnvironmentCost:
    """The sum of the worst-case ceilings of an environment's bounded pools, before and after, and its changed
    pools. A side with an unbounded pool (``unbounded_*``) has no ceiling at all: its sum is only that of the
    bounded pools, and no percentage compares it. ``comparable_*``: the sums over the pools bounded on both sides
    (what ``--fail-on cost-increase`` compares; None: ``before`` / ``after``)."""

    environment: str
    before: Decimal
    after: Decimal
    unbounded_before: tuple[str, ...]
    unbounded_after: tuple[str, ...]
    pools: tuple[PoolCost, ...]
    comparable_before: Decimal | None = None
    comparable_after: Decimal | None = None

    @property
    def increase_percent(self) -> Decimal | None:
        """(after - before) / before in percent; None when ``before`` is 0 (any rise is unbounded in percent) or
        either side has an unbounded pool (a sum of the bounded pools is no ceiling: limits put on an unbounded
        pool would read as a rise)."""
        if self.before == 0 or self.unbounded_before or self.unbounded_after:
            return None
        return (self.after - self.before) * 100 / self.before

    def exceeds(self, percent: Decimal) -> bool:
        """Whether the ceiling rises by more than ``percent``: a new unbounded pool always does; unbounded → bounded
        is a decrease; otherwise the pools bounded on both sides are compared (a rise from 0 always counts)."""
        if set(self.unbounded_after) - set(self.unbounded_before):
            return True
        before = self.before if self.comparable_before is None else self.comparable_before
        after = self.after if self.comparable_after is None else self.comparable_after
        if before == 0:
            return after > before
        return (after - before) * 100 / before > percent


@dataclass(frozen=True)
class CostReport:
    """Per-environment cost changes and the price list they were computed with."""

    catalog: Catalog
    embedded: bool
    environments: tuple[EnvironmentCost, ...]
    #: The AWS facts the offerings were built with (``--aws``); None: the catalog stands in for them.
    aws: AwsFacts | None = None
    #: Per environment, the Karpenter controller settings each side ran under (one line each).
    settings: tuple[str, ...] = ()

    def stand_in(self) -> frozenset[str]:
        """The capacity types shown at the on-demand list price (no spot prices or reservations from ``--aws``)."""
        known = {"spot": self.aws is not None and bool(self.aws.sources.get("spot")),
                 "reserved": self.aws is not None and self.aws.knows_reservations}
        return frozenset(kind for kind, has in known.items() if not has)

    def price_list(self) -> str:
        where = "embedded catalog" if self.embedded else "catalog file"
        listed = price_basis(self.catalog)
        facts = price_basis(self.catalog, self.aws)[len(listed):]  # "; spot: prices from <files>" ...
        stand_in = [kind for kind in ("spot", "reserved") if kind in self.stand_in()]
        tail = f", standing in for {' and '.join(stand_in)}" if stand_in else ""
        return f"{where} {self.catalog.source} ({self.catalog.date}; {listed}s{facts}{tail})"


def _unbounded(report: PoolReport) -> bool:
    """A dynamic pool that no ``spec.limits`` resource bounds: its spend has no ceiling (the simulator says why)."""
    return report.kind == "dynamic" and report.unbounded and bool(report.candidates)


def _offered(report: PoolReport | None) -> set[tuple[str, str]]:
    """(capacity type, instance type) for every admitted type and offering the simulator found for the pool."""
    if report is None:
        return set()
    return {(o.offering.capacity_type, c.name) for c in report.candidates for o in c.offerings}


def _first(report: PoolReport | None) -> Choice | None:
    """The cheapest priced candidate (candidates are sorted by price, unknown prices last)."""
    if report is None or not report.candidates:
        return None
    c = report.candidates[0]
    if c.price is None:
        return None
    priced = [o for o in c.offerings if o.price is not None]
    cheapest = min(priced, key=lambda o: o.price or Decimal(0)) if priced else None
    return Choice(c.name, c.cheapest_offering(Requirements()), c.price,
                  cheapest is not None and cheapest.on_demand_stand_in)


def _by_capacity(pairs: set[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for capacity_type, name in sorted(pairs):
        out.setdefault(capacity_type, []).append(name)
    return {k: tuple(v) for k, v in out.items()}


def side_settings(environment: str, env: dict[Key, dict], fallback: ControllerSettings | None = None
                  ) -> ControllerSettings:
    """One side's controller settings: its ``helm/karpenter.values.yaml``, else ``fallback``
    (``--karpenter-values``), else the chart's defaults (:func:`~karpenter_gpu.k8s.controller_settings
    .environment_settings`)."""
    values = {name: v for (api, _, name), v in env.items() if api == "helm"}
    return environment_settings(values, f"{environment}/helm/{KARPENTER_VALUES_FILE}", fallback)


def _reports(env: dict[Key, dict], catalog: Catalog, aws: AwsFacts | None,
             settings: ControllerSettings | None = None) -> dict[str, PoolReport]:
    manifests = [m for (api, _, _), m in sorted(env.items()) if api != "helm"]
    return {r.name: r for r in simulate_pools(manifests, catalog, aws=aws, settings=settings)}


def _environment_cost(environment: str, base_env: dict[Key, dict], head_env: dict[Key, dict],
                      catalog: Catalog, aws: AwsFacts | None = None,
                      settings: tuple[ControllerSettings, ControllerSettings] | None = None) -> EnvironmentCost:
    settings_before, settings_after = settings if settings is not None else (None, None)
    old, new = _reports(base_env, catalog, aws, settings_before), _reports(head_env, catalog, aws, settings_after)
    pools = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        before, after = _offered(a), _offered(b)
        cost = PoolCost(
            pool=name, present_before=a is not None, present_after=b is not None,
            added=_by_capacity(after - before), removed=_by_capacity(before - after),
            ceiling_before=a.worst_case_hourly if a else None, ceiling_after=b.worst_case_hourly if b else None,
            first_before=_first(a), first_after=_first(b),
            unbounded_before=bool(a and _unbounded(a)), unbounded_after=bool(b and _unbounded(b)))
        if (cost.added or cost.removed or cost.ceiling_before != cost.ceiling_after or cost.first_before !=
                cost.first_after or cost.present_before != cost.present_after
                or cost.unbounded_before != cost.unbounded_after):
            pools.append(cost)
    total = lambda reports: sum((r.worst_case_hourly or Decimal(0) for r in reports.values()), Decimal(0))  # noqa: E731
    unbounded = {n for reports in (old, new) for n, r in reports.items() if _unbounded(r)}
    comparable = lambda reports: total({n: r for n, r in reports.items() if n not in unbounded})  # noqa: E731
    return EnvironmentCost(environment, total(old), total(new),
                           tuple(sorted(n for n, r in old.items() if _unbounded(r))),
                           tuple(sorted(n for n, r in new.items() if _unbounded(r))), tuple(pools),
                           comparable(old), comparable(new))


def cost_changes(base: Side, head: Side, catalog: Catalog | None = None, *, crds: Crds | None = None,
                 admitted: Admitted | None = None, aws: AwsFacts | None = None,
                 karpenter_values: ControllerSettings | None = None,
                 lines: tuple[Mapping[str, str], Mapping[str, str]] | None = None) -> CostReport:
    """What the change does to each environment's GPU capacity and worst-case spend.

    Every figure comes from :func:`~karpenter_gpu.analysis.simulator.simulate_pools` run on each side (the
    scheduling core matches requirements, the overlay resolution re-prices offerings), so NodeOverlay, limit,
    requirement and capacity-type changes show up as the simulator sees them. Environments without a
    cost change are left out. ``aws``: the account's facts (spot prices, zones offered, capacity reservations),
    the same for both sides. Each side runs under its own controller settings (:func:`side_settings`;
    ``karpenter_values`` for a side without a values file), named in the report's ``settings``, and for its
    Karpenter line (``lines``: per side, the line of each environment, "1.9" or "1.14"; the default line when absent).
    """
    embedded = catalog is None
    catalog = catalog if catalog is not None else default_catalog()
    # what the cluster runs: a refused object changes nothing (``admitted``: already checked by the caller)
    admitted = admitted if admitted is not None else admit(base, head, crds)
    base, head = admitted.base, admitted.head
    envs, said = [], []
    for environment in sorted(set(base) | set(head)):
        sides = (side_settings(environment, base.get(environment, {}), karpenter_values),
                 side_settings(environment, head.get(environment, {}), karpenter_values))
        if lines is not None:  # each side answers as its line behaves (upstream.BEHAVIOUR_SINCE)
            sides = (replace(sides[0], line=lines[0].get(environment, sides[0].line)),
                     replace(sides[1], line=lines[1].get(environment, sides[1].line)))
        said.append(f"{environment}: {sides[1].describe()}" if replace(sides[0], line=sides[1].line) == sides[1] and
                    sides[0].source == sides[1].source else
                    f"{environment}: before {sides[0].describe()}; after {sides[1].describe()}")
        cost = _environment_cost(environment, base.get(environment, {}), head.get(environment, {}), catalog, aws,
                                 sides)
        if cost.pools or cost.before != cost.after:
            envs.append(cost)
    return CostReport(catalog, embedded, tuple(envs), aws, tuple(said))




def cost_json(report: CostReport) -> dict:
    """The cost report as plain JSON types; money as strings with two decimals, keys in a fixed order."""
    money = lambda d: None if d is None else f"{d:.2f}"  # noqa: E731
    choice = lambda c: None if c is None else {"instance": c.instance, "offering": c.offering,  # noqa: E731
                                               "price": money(c.price),
                                               # a spot or reserved offering priced at the on-demand list price
                                               "onDemandListPrice": c.list_price}
    return {
        "priceList": {"embedded": report.embedded, "source": report.catalog.source,
                      "region": report.catalog.region, "date": report.catalog.date,
                      "basis": price_basis(report.catalog, report.aws),
                      "aws": {} if report.aws is None else {k: list(v) for k, v in sorted(report.aws.sources.items())}},
        "note": EVENTUALLY_CONSISTENT,
        "settings": list(report.settings),
        "environments": [{
            "environment": e.environment, "ceilingBefore": money(e.before), "ceilingAfter": money(e.after),
            "increasePercent": None if e.increase_percent is None else f"{e.increase_percent:.1f}",
            "unboundedBefore": list(e.unbounded_before), "unboundedAfter": list(e.unbounded_after),
            "pools": [{
                "nodePool": p.pool, "presentBefore": p.present_before, "presentAfter": p.present_after,
                "ceilingBefore": money(p.ceiling_before), "ceilingAfter": money(p.ceiling_after),
                "unboundedBefore": p.unbounded_before, "unboundedAfter": p.unbounded_after,
                "firstChoiceBefore": choice(p.first_before), "firstChoiceAfter": choice(p.first_after),
                "typesAdded": {k: list(v) for k, v in p.added.items()},
                "typesRemoved": {k: list(v) for k, v in p.removed.items()},
            } for p in e.pools],
        } for e in report.environments],
    }




def cost_exceeded(report: CostReport, percent: Decimal) -> list[str]:
    """The environments whose worst-case ceiling rises by more than ``percent`` (``--fail-on cost-increase``)."""
    return [e.environment for e in report.environments if e.exceeds(percent)]

