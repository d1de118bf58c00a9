"""Disruption: consolidation, budgets, expiry and spot interruptions (KG403, KG405, KG412-KG414, KG420, KG462)."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, Pool, as_dict, as_list
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.disruption import CONSOLIDATION_REASONS, INT32_MAX, always_blocked, budget_nodes_as_read
from karpenter_gpu.k8s.int64 import ascii_digits, int64_of
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.windows import WINDOWS_ANNOTATION

_BUSINESS_START_HOURS = range(8, 11)  # a UTC start hour that reads like a local 08:00-10:00 start


@rule("KG403", Severity.WARNING, "GPU pool without a disruption block (defaults consolidate at once)")
def kg403_no_disruption(env: RuleEnvironment) -> None:
    """What it checks: a dynamic GPU NodePool without ``spec.disruption``.

    Why it matters: the defaults are consolidationPolicy WhenEmptyOrUnderutilized, consolidateAfter 0s and a 10%
    budget, so a GPU node whose pods request little CPU or memory looks underutilized and is consolidated (its
    pods evicted, running jobs killed) as soon as the cluster shifts.

    Fix: add ``spec.disruption`` with consolidationPolicy WhenEmpty and consolidateAfter e.g. 10m, plus budgets.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` (``Disruption`` defaults) and
    ``pkg/controllers/disruption/singlenodeconsolidation.go``.
    """
    for pool in env.pools:
        if pool.dynamic_gpu and pool.disruption is None:
            pool.add("KG403", "spec.disruption",
                     "GPU pool without spec.disruption: Karpenter then uses consolidationPolicy "
                     "WhenEmptyOrUnderutilized with consolidateAfter 0s and a 10% budget, so a GPU node whose pods "
                     "request little CPU/memory looks underutilized and is consolidated (its pods evicted, running "
                     "jobs killed) as soon as the cluster shifts; fix: add spec.disruption with consolidationPolicy "
                     "WhenEmpty and consolidateAfter e.g. 10m (plus budgets)")


@rule("KG405", Severity.WARNING, "training pool relying on the default expireAfter (720h, forceful)")
def kg405_expiry(env: RuleEnvironment) -> None:
    """What it checks: a self-managed NodePool that looks like it runs training (its name or labels say so, or
    it consolidates only empty non-spot nodes) and sets no ``expireAfter``. Auto Mode pools have their own cap
    (KG440).

    Why it matters: the default 720h applies and expiry is forceful: every 30 days each node is drained even
    mid-run, and neither ``karpenter.sh/do-not-disrupt`` nor budgets stop it.

    Fix: set ``spec.template.spec.expireAfter`` explicitly (longer than the longest job, or Never with a patching
    plan) and ``terminationGracePeriod`` to give checkpoints time.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/nodeclaim/expiration/controller.go`` and the
    ``expireAfter`` default in ``pkg/apis/v1/nodeclaim.go``.
    """
    for pool in env.pools:
        if pool.view.auto_mode or "expireAfter" in pool.tspec:
            continue
        why = pool.training_reason()
        if why is not None:
            pool.add("KG405", "spec.template.spec.expireAfter",
                     f"training-looking pool ({why}) without expireAfter: the default 720h applies and expiry is "
                     "forceful, so every 30 days each node is drained even mid-run, and neither "
                     "karpenter.sh/do-not-disrupt nor budgets stop it; fix: set spec.template.spec.expireAfter "
                     "explicitly (longer than your longest job, or 'Never' with a patching plan) and "
                     "terminationGracePeriod to give checkpoints time")


_CONSEQUENCES = {"Empty": "empty nodes are never removed and keep billing",
                 "Underutilized": "underutilized nodes are never consolidated onto fewer or cheaper ones",
                 "Drifted": "drifted nodes (a new AMI, a changed template) are never replaced"}


@rule("KG412", Severity.WARNING, "unscheduled zero budget blocks consolidation that is set to run")
def kg412_zero_budget(env: RuleEnvironment) -> None:
    """What it checks: a dynamic NodePool whose budgets allow 0 nodes at all times (a budget of 0 or 0% without a
    schedule) for a consolidation reason its ``consolidationPolicy`` runs. What is blocked is computed per reason
    (Empty, Underutilized, Drifted) from the budgets, as Karpenter does; a budget limited to other reasons blocks
    nothing here.

    Why it matters: the pool says consolidation should run (a consolidateAfter other than Never) while a budget
    forbids it for good, so e.g. empty GPU nodes keep billing.

    Fix: say so with consolidateAfter Never, or give the budget a schedule and duration (a window), or narrow it
    with reasons to what should really never happen.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` ``GetAllowedDisruptionsByReason`` and
    ``Budget.GetAllowedDisruptions``.
    """
    for pool in env.pools:
        disruption = as_dict(pool.disruption)
        if pool.static or pool.disruption is None or str(disruption.get("consolidateAfter")) == "Never":
            continue
        budgets = [as_dict(b) for b in as_list(disruption.get("budgets"))]
        blocked = always_blocked(budgets)
        consolidating = CONSOLIDATION_REASONS.get(pool.policy, frozenset({"Empty", "Underutilized"}))
        stopped = [r for r in ("Empty", "Underutilized") if r in consolidating and r in blocked]
        if not stopped:
            continue
        first = min(blocked[r] for r in stopped)
        allowed = sorted(consolidating - set(stopped))
        effects = [_CONSEQUENCES[r] for r in (*stopped, "Drifted") if r in blocked]
        still = f"; {', '.join(allowed)} consolidation still runs" if allowed else ""
        pool.add("KG412", f"spec.disruption.budgets[{first}]",
                 f"budget nodes '{budgets[first].get('nodes')}' has no schedule, so it blocks "
                 f"{' and '.join(stopped)} disruption at all times although consolidationPolicy {pool.policy} with "
                 f"consolidateAfter {disruption.get('consolidateAfter')} is set to run it: {'; '.join(effects)}"
                 f"{still}; fix: say so with consolidateAfter: Never, or give the budget a schedule and duration (a "
                 "window), or narrow it with reasons")


#: IANA time zone of each AWS region's location (the city the region is named after), for KG413's message.
_REGION_ZONES = {
    "us-east-1": "America/New_York", "us-east-2": "America/New_York", "us-west-1": "America/Los_Angeles",
    "us-west-2": "America/Los_Angeles", "ca-central-1": "America/Toronto", "ca-west-1": "America/Edmonton",
    "mx-central-1": "America/Mexico_City", "sa-east-1": "America/Sao_Paulo", "eu-west-1": "Europe/Dublin",
    "eu-west-2": "Europe/London", "eu-west-3": "Europe/Paris", "eu-central-1": "Europe/Berlin",
    "eu-central-2": "Europe/Zurich", "eu-north-1": "Europe/Stockholm", "eu-south-1": "Europe/Rome",
    "eu-south-2": "Europe/Madrid", "il-central-1": "Asia/Jerusalem", "me-south-1": "Asia/Bahrain",
    "me-central-1": "Asia/Dubai", "af-south-1": "Africa/Johannesburg", "ap-east-1": "Asia/Hong_Kong",
    "ap-south-1": "Asia/Kolkata", "ap-south-2": "Asia/Kolkata", "ap-northeast-1": "Asia/Tokyo",
    "ap-northeast-2": "Asia/Seoul", "ap-northeast-3": "Asia/Tokyo", "ap-southeast-1": "Asia/Singapore",
    "ap-southeast-2": "Australia/Sydney", "ap-southeast-3": "Asia/Jakarta", "ap-southeast-4": "Australia/Melbourne",
    "ap-southeast-5": "Asia/Kuala_Lumpur", "ap-southeast-7": "Asia/Bangkok",
}
_ZONE_REGION = re.compile(r"^([a-z]{2}(?:-gov)?-[a-z]+-[0-9]+)")


def _pool_time_zone(pool: Pool) -> str | None:
    """The time zone of the region the pool's zones (``topology.kubernetes.io/zone In``) are in, when it is one."""
    regions = {m.group(1) for r in pool.selection if r.key == Label.ZONE and r.op == "In"
               for z in (r.values or []) if (m := _ZONE_REGION.match(z))}
    zones = {_REGION_ZONES.get(region) for region in regions}
    return zones.pop() if len(zones) == 1 and None not in zones else None


def _utc_offsets(zone: str) -> list[int]:
    """Whole-hour UTC offsets of ``zone`` in January and July (two when it observes DST)."""
    tz = ZoneInfo(zone)
    out = []
    for month in (1, 7):
        offset = datetime(2026, month, 15, 12, tzinfo=tz).utcoffset()
        hours = int(offset.total_seconds() // 3600) if offset is not None else 0
        if hours not in out:
            out.append(hours)
    return out


@rule("KG413", Severity.INFO, "budget schedule in UTC that looks like local business hours")
def kg413_utc_schedules(env: RuleEnvironment) -> None:
    """What it checks: a budget schedule that starts between 08:00 and 10:59 UTC on a pool whose windows the
    library did not compile from local time (no ``karpenter-gpu.io/disruption-windows`` annotation).

    Why it matters: Karpenter evaluates budget schedules in UTC and has no time zones; a window meant as local
    business hours is off by the UTC offset of the region (given for the region of the pool's zones).

    Fix: convert the schedule to UTC, or build it with DisruptionWindow and a time zone.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` ``Budget.IsActive`` (cron in UTC).
    """
    for pool in env.pools:
        if WINDOWS_ANNOTATION in as_dict(pool.metadata.get("annotations")):
            continue  # the library compiled these windows from local time
        zone = _pool_time_zone(pool)
        for i, raw in enumerate(as_list(as_dict(pool.disruption).get("budgets"))):
            schedule = as_dict(raw).get("schedule")
            fields = schedule.split() if isinstance(schedule, str) else []
            start = re.match(r"^([0-9]{1,2})", fields[1]) if len(fields) == 5 else None
            if start is None or int(start.group(1)) not in _BUSINESS_START_HOURS:
                continue
            hour = int(start.group(1))
            if zone is None:
                where = ("not local time unless the cluster's zone is UTC (the pool names no zones of one AWS region "
                         "to tell its time zone)")
                convert = f"convert to UTC (for UTC+9, {hour:02d}:00 local is hour {(hour - 9) % 24} UTC)"
            else:
                offsets = _utc_offsets(zone)
                local = "/".join(f"{(hour + o) % 24:02d}:00" for o in offsets)
                utc = "/".join(f"{o:+d}" for o in offsets)
                where = (f"= {local} {zone} (UTC{utc}{', with DST' if len(offsets) > 1 else ''}, the time zone of the "
                         f"pool's zones), not {hour:02d}:00 local time")
                convert = (f"convert to UTC ({hour:02d}:00 {zone} is hour "
                           f"{'/'.join(str((hour - o) % 24) for o in offsets)} UTC"
                           f"{', the day before' if any(hour < o for o in offsets) else ''})")
            pool.add("KG413", f"spec.disruption.budgets[{i}].schedule",
                     f"budget schedules are UTC (Karpenter has no time zones): {schedule!r} starts at {hour:02d}:00 "
                     f"UTC {where}; if local business hours were meant the window is off by your UTC offset; fix: "
                     f"{convert} or build it with DisruptionWindow and a time zone (recorded in the "
                     f"{WINDOWS_ANNOTATION} annotation)")


@rule("KG414", Severity.INFO, "spot capacity needs the controller's interruption queue")
def kg414_spot(env: RuleEnvironment) -> None:
    """What it checks: a self-managed NodePool that admits spot capacity (explicitly, or by having no
    capacity-type requirement). Auto Mode handles interruptions itself.

    Why it matters: Karpenter drains a spot node on its 2-minute interruption notice only when the controller
    has ``settings.interruptionQueue`` (an SQS queue fed by EventBridge); without it reclaimed GPU nodes vanish
    without a drain.

    Fix: set ``settings.interruptionQueue`` in the Karpenter Helm values.

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/controllers/interruption/controller.go``.
    """
    for pool in env.pools:
        if pool.view.auto_mode or "spot" not in pool.view.capacity_types:
            continue
        declared = next((r for r in pool.selection if r.key == Label.CAPACITY_TYPE), None)
        where = "spot capacity" if declared is not None else (
            "no karpenter.sh/capacity-type requirement, so spot is admitted and launched first (the provider prefers "
            "reserved > spot > on-demand)")
        pool.add("KG414", declared.path if declared is not None else pool.REQS,
                 f"{where}: Karpenter drains a spot node on its 2-minute interruption notice only if the "
                 "controller has settings.interruptionQueue (an SQS queue fed by EventBridge); without it "
                 "reclaimed GPU nodes vanish without a drain and jobs lose everything since their last "
                 "checkpoint; fix: set settings.interruptionQueue in the Karpenter Helm values")


@rule("KG420", Severity.WARNING, "training pool whose only capacity type is spot")
def kg420_training_on_spot(env: RuleEnvironment) -> None:
    """What it checks: a GPU NodePool that looks like it runs training and whose launchable instance types are
    offered as spot only (from the simulation of its capacity-type requirement).

    Why it matters: every spot reclaim (2-minute notice) kills a long job since its last checkpoint.

    Fix: add on-demand capacity, or acknowledge if the jobs checkpoint more often than every 2 minutes.

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/offering`` (capacity-type
    offerings) and ``pkg/controllers/interruption``.
    """
    for pool in env.pools:
        report = env.report(pool)
        if pool.is_gpu and report is not None and set(report.capacity_types) == {"spot"} and pool.training_reason():
            pool.add("KG420", pool.REQS, "a training pool on spot only: every reclaim (2-minute notice) kills a "
                                         "long job since its last checkpoint; fix: add on-demand, or acknowledge "
                                         "if the jobs checkpoint more often than every 2 minutes")



@rule("KG462", Severity.WARNING, "budget nodes beyond int32 (Karpenter wraps or fails closed)")
def kg462_budget_nodes_overflow(env: RuleEnvironment) -> None:
    """What it checks: a disruption budget whose ``nodes`` is a count larger than 2147483647.

    Why it matters: the CRD pattern admits any digits, so the API server accepts it, but Karpenter reads the count
    as an int32: a larger number wraps (``4294967296`` is 0, ``2147483648`` is negative) and a number beyond int64
    is an error, which fails closed. Either way the budget allows far fewer disruptions than written, often none.

    Fix: write a count of at most 2147483647 (a budget of "100%" allows every node).

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` ``GetIntStrFromValue`` and
    ``Budget.GetAllowedDisruptions``; k8s.io/apimachinery ``pkg/util/intstr.FromInt``.
    """
    for pool in env.pools:
        for index, budget in enumerate(pool.view.budgets):
            nodes = budget.get("nodes")
            if not (isinstance(nodes, str) and ascii_digits(nodes)):
                continue
            count = int64_of(nodes)  # None: beyond int64, which Karpenter reads as 0
            if count is not None and count <= INT32_MAX:
                continue
            read = budget_nodes_as_read(nodes)
            effect = f"allows {read} node(s) at once" if read > 0 else "blocks every disruption it applies to"
            pool.add("KG462", f"spec.disruption.budgets[{index}].nodes",
                     f"nodes {nodes} is beyond int32: Karpenter reads it as {read}, so while it is active the budget "
                     f"{effect}; fix: write at most 2147483647, or \"100%\" for every node")
