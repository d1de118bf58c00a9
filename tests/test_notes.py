"""The simulation's notes are typed records: one :class:`Note` class per :class:`NoteKind`, the facts as fields, the
sentence from ``text``; callers find a note by its kind, never by words in its text."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

from karpenter_gpu.analysis import cost_notes, notes
from karpenter_gpu.analysis.notes import Note, NoteKind
from karpenter_gpu.analysis.region import region_warnings
from karpenter_gpu.check.rules import check_rules
from tests.test_simulator import one, pool, req


def _note_classes() -> list[type[Note]]:
    found: list[type[Note]] = []
    todo = [Note]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.append(sub)
            todo.append(sub)
    return [c for c in found if c.__module__ in (notes.__name__, cost_notes.__name__)]


def test_every_kind_has_exactly_one_note_class():
    kinds = Counter(c.kind for c in _note_classes())
    assert set(kinds) == set(NoteKind), set(NoteKind) ^ set(kinds)
    assert [k for k, n in kinds.items() if n > 1] == []


def test_a_report_holds_notes_problems_first_each_with_its_facts():
    report = one(pool("p", req("family", "In", "g5"), req("karpenter.sh/capacity-type", "In", "on-demand"),
                      limits={"nvidia.com/gpu": "8"}))
    assert [n.kind for n in report.notes] == [NoteKind.NODE_CLASS_MISSING, NoteKind.WORST_CASE,
                                              NoteKind.LIMITS_EVENTUAL]
    worst = report.notes[1]
    assert isinstance(worst, cost_notes.WorstCase)
    # g5.16xlarge: 1 GPU at 4.096/h, the dearest per GPU under 8 GPUs
    assert (worst.hourly, worst.nodes, worst.limits) == (report.worst_case_hourly, report.worst_case_nodes,
                                                          (("nvidia.com/gpu", "8"),))
    assert worst.text == ("worst case 32.77/h: 8 x g5.16xlarge before the limits nvidia.com/gpu 8 (GPUs) stop it "
                          "(us-east-1 on-demand list price)")
    blocked = one(pool("p", req("family", "In", "g5"), req("topology.kubernetes.io/zone", "In", "us-east-1a"),
                       req("topology.kubernetes.io/zone", "In", "us-east-1b")))
    assert not blocked.launchable and blocked.problems == blocked.notes[:len(blocked.problems)]
    assert blocked.problems[0].kind is NoteKind.NO_ZONE


def test_the_reserved_note_is_dropped_by_kind_when_the_node_class_has_no_reservation_terms():
    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
                  "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "r"}}
    report = one(pool("p", req("family", "In", "g5"), req("karpenter.sh/capacity-type", "In", "reserved", "spot")),
                 node_class)
    kinds = [n.kind for n in report.notes]
    assert NoteKind.RESERVED_NEEDS_SELECTION not in kinds and NoteKind.NO_RESERVATION_TERMS in kinds
    [terms] = [n for n in report.notes if isinstance(n, notes.NoReservationTerms)]
    assert terms.launches == ("spot",) and terms.text.endswith("so this pool has none and launches spot")


def test_kg401_quotes_the_unbounded_note_found_by_kind():
    """A note that merely contains the word (the node class is named 'unbounded') is not the one quoted."""
    p = pool("p", req("family", "In", "g5"), limits={"aws.amazon.com/neuron": "8"})
    p["spec"]["template"]["spec"]["nodeClassRef"]["name"] = "unbounded"
    report = one(p)
    [unbounded] = [n for n in report.notes if n.kind is NoteKind.UNBOUNDED]
    assert isinstance(unbounded, cost_notes.Unbounded) and unbounded.limited == ("aws.amazon.com/neuron",)
    assert report.notes.index(unbounded) > 0 and "unbounded" in report.notes[0].text  # the node class note
    [kg401] = [f for f in check_rules([("p.yaml", p)]) if f.code == "KG401"]
    assert f"({unbounded.why})" in kg401.message and "allocatable assumes" not in kg401.message


def test_region_warnings_are_notes():
    seoul = pool("seoul", req("family", "In", "g5"), req("topology.kubernetes.io/zone", "In", "ap-northeast-2a"))
    [warning] = region_warnings([seoul])
    assert isinstance(warning, notes.OtherRegion) and warning.kind is NoteKind.OTHER_REGION
    assert (warning.pools, warning.regions, warning.catalog_region) == (("seoul",), ("ap-northeast-2",), "us-east-1")


def test_amounts_as_people_read_them():
    assert notes.amount_text("memory", Decimal(16 * 2**30)) == "16Gi"
    assert notes.amount_text("memory", Decimal(1536 * 2**20)) == "1536Mi"
    assert notes.amount_text("cpu", Decimal("3.500")) == "3.5"
    assert notes.money(Decimal("32.765")) == "32.76" and notes.money(Decimal("32.775")) == "32.78"  # half-even
