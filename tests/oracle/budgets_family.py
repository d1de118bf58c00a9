"""The oracle's ``budgets`` family: a NodePool's disruption budgets, its node count and a time; Karpenter's
``NodePool.GetAllowedDisruptionsByReason`` (tests/oracle/budgets.go) against k8s/budgets.py ``allowed_by_reason``.

Budgets are drawn as the NodePool CRD admits and stores them (``spec.disruption.budgets``, at most 50): ``nodes``
matching ``^((100|[0-9]{1,2})%|[0-9]+)$`` (counts beyond int32 too), ``reasons`` absent, empty or a subset of the
enum, ``schedule`` and ``duration`` together (the CEL rule) with the CRD's patterns: schedules from the cron family's
generator, durations of hours and/or minutes with the optional ``0s``.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from karpenter_gpu.k8s.budgets import allowed_by_reason
from karpenter_gpu.k8s.disruption import DISRUPTION_REASONS

_NODES_EDGES = ["0", "1", "2", "3", "10", "0%", "1%", "5%", "10%", "33%", "50%", "99%", "100%", "00", "007",
                "2147483647", "2147483648", "4294967296", "4294967297", "9223372036854775807",
                "9223372036854775808", "99999999999999999999"]


def _nodes(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(_NODES_EDGES)
    if roll < 0.7:
        return f"{rng.randint(0, 100)}%"
    return str(rng.randint(0, 20))


def _duration(rng: random.Random) -> str:
    roll = rng.random()
    hours, minutes = rng.choice([0, 1, 2, 8, 10, 24, 72, 168, 200, 10000]), rng.choice([0, 1, 15, 30, 59, 60, 90])
    text = f"{hours}h" if roll < 0.4 else f"{minutes}m" if roll < 0.7 else f"{hours}h{minutes}m"
    return text + ("0s" if rng.random() < 0.2 else "")


def _budget(rng: random.Random) -> dict:
    from tests.oracle.cases import SCHEDULE_PATTERN, _schedule

    budget: dict = {"nodes": _nodes(rng)}
    roll = rng.random()
    if roll < 0.2:
        budget["reasons"] = []
    elif roll < 0.6:
        budget["reasons"] = rng.sample(list(DISRUPTION_REASONS), rng.randint(1, 3))
    if rng.random() < 0.6:
        schedule = _schedule(rng) if rng.random() < 0.3 else rng.choice(
            ["0 9 * * 1-5", "0 0 * * *", "@daily", "@weekly", "@hourly", "30 18 * * *", "0 22 * * 5",
             "0 0 1 * *", "0 0 30 2 *", "*/15 * * * *", "0 9-17 * * mon-fri", "0 0 29 2 *", "0 12 * * sun"])
        while not SCHEDULE_PATTERN.search(schedule):
            schedule = _schedule(rng)
        budget["schedule"], budget["duration"] = schedule, _duration(rng)
    return budget


def oracle_case(rng: random.Random) -> dict:
    count = rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 8, 12, 50])
    now = datetime(2027, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(2 * 365 * 86400))
    if rng.random() < 0.3:  # on a schedule's edges: whole minutes and hours
        now = now.replace(minute=rng.choice([0, 0, 15, 30, 59]) if rng.random() < 0.5 else now.minute, second=0)
    return {"budgets": [_budget(rng) for _ in range(count)], "nodes": rng.choice([0, 1, 2, 3, 7, 10, 19, 100, 1000]),
            "now": now.strftime("%Y-%m-%dT%H:%M:%SZ")}


def core_answer(case: dict) -> dict:
    now = datetime.strptime(case["now"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return allowed_by_reason(case["budgets"], case["nodes"], now)
