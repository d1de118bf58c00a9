"""CapacityReservationTerm → EC2NodeClass capacityReservationSelectorTerms."""

from __future__ import annotations

import pytest

from karpenter_gpu import GpuNodeClass, KarpenterGpuError
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm, InstanceMatchCriteria
from karpenter_gpu.apiserver.conformance import check
from tests.conftest import only

OWNER = "123456789012"


def node_class(chart, *terms):
    return GpuNodeClass(chart, "Class", name="gpu-reserved", ami="al2023@v20251103", role="R", cluster_name="c",
                        capacity_reservations=terms)


def test_by_id():
    assert CapacityReservationTerm.by_id("cr-0123456789abcdef0").render() == {"id": "cr-0123456789abcdef0"}


def test_by_tags_with_owner_renders_owner_id_key():
    term = CapacityReservationTerm.by_tags({"team": "ml", "env": "prod"}, owner_id=OWNER)
    assert term.render() == {"tags": {"env": "prod", "team": "ml"}, "ownerID": OWNER}


def test_by_tags_with_match_criteria():
    term = CapacityReservationTerm.by_tags({"team": "ml"}, instance_match_criteria=InstanceMatchCriteria.TARGETED)
    assert term.render() == {"tags": {"team": "ml"}, "instanceMatchCriteria": "targeted"}


def test_by_instance_match():
    assert CapacityReservationTerm.by_instance_match(InstanceMatchCriteria.OPEN).render() == {
        "instanceMatchCriteria": "open"}
    assert CapacityReservationTerm.by_instance_match(InstanceMatchCriteria.TARGETED, owner_id=OWNER).render() == {
        "instanceMatchCriteria": "targeted", "ownerID": OWNER}


def test_node_class_renders_terms_in_order_and_passes_schema(chart, crds):
    node_class(chart, CapacityReservationTerm.by_id("cr-0abc"),
               CapacityReservationTerm.by_tags({"team": "ml"}, owner_id=OWNER),
               CapacityReservationTerm.by_instance_match(InstanceMatchCriteria.OPEN))
    m = only(chart, "EC2NodeClass")
    assert m["spec"]["capacityReservationSelectorTerms"] == [
        {"id": "cr-0abc"}, {"tags": {"team": "ml"}, "ownerID": OWNER}, {"instanceMatchCriteria": "open"}]
    assert check(m, crds) == []


def test_node_class_without_reservations_renders_no_terms(chart):
    node_class(chart)
    assert "capacityReservationSelectorTerms" not in only(chart, "EC2NodeClass")["spec"]


def test_thirty_terms_allowed(chart, crds):
    node_class(chart, *(CapacityReservationTerm.by_id(f"cr-{i:04d}") for i in range(30)))
    m = only(chart, "EC2NodeClass")
    assert len(m["spec"]["capacityReservationSelectorTerms"]) == 30
    assert check(m, crds) == []


def test_twenty_tags_allowed():
    assert len(CapacityReservationTerm.by_tags({f"k{i}": "v" for i in range(20)}).render()["tags"]) == 20


@pytest.mark.parametrize("build", [
    pytest.param(lambda: CapacityReservationTerm.by_id("cr_1"), id="bad-id"),
    pytest.param(lambda: CapacityReservationTerm.by_id("cr-ABC"), id="upper-case-id"),
    pytest.param(lambda: CapacityReservationTerm(id="cr-1", tags={"team": "ml"}), id="id-with-tags"),
    pytest.param(lambda: CapacityReservationTerm(id="cr-1", owner_id=OWNER), id="id-with-owner"),
    pytest.param(lambda: CapacityReservationTerm(id="cr-1", instance_match_criteria=InstanceMatchCriteria.OPEN),
                 id="id-with-match-criteria"),
    pytest.param(lambda: CapacityReservationTerm(owner_id=OWNER), id="owner-alone"),
    pytest.param(lambda: CapacityReservationTerm(), id="empty-term"),
    pytest.param(lambda: CapacityReservationTerm.by_tags({"team": "ml"}, owner_id="123"), id="bad-owner"),
    pytest.param(lambda: CapacityReservationTerm.by_tags({}), id="empty-tags"),
    pytest.param(lambda: CapacityReservationTerm.by_tags({"": "x"}), id="empty-tag-key"),
    pytest.param(lambda: CapacityReservationTerm.by_tags({f"k{i}": "v" for i in range(21)}), id="21-tags"),
])
def test_invalid_terms_rejected(build):
    with pytest.raises(KarpenterGpuError) as exc:
        build()
    assert exc.value.code == "KG190"


def test_empty_tag_value_rejected():
    # The CRD's CEL rejects them: "empty tag keys or values aren't supported".
    with pytest.raises(KarpenterGpuError) as exc:
        CapacityReservationTerm.by_tags({"team": ""})
    assert exc.value.code == "KG190"


def test_thirty_one_terms_rejected(chart):
    with pytest.raises(KarpenterGpuError) as exc:
        node_class(chart, *(CapacityReservationTerm.by_id(f"cr-{i:04d}") for i in range(31)))
    assert exc.value.code == "KG190"
    assert exc.value.path == "test/Class"
    assert chart.node.try_find_child("Class") is None
