"""Batch scheduling: the pods of a workload placed as Karpenter's provisioning scheduler places them
(:func:`schedule_batch`), with what launches for each new NodeClaim (:class:`BatchPlan`)."""

from karpenter_gpu.analysis.batch.plan import BatchPlan, ExistingUse, Pending, PlannedClaim
from karpenter_gpu.analysis.batch.scheduler import schedule_batch

__all__ = ["BatchPlan", "ExistingUse", "Pending", "PlannedClaim", "schedule_batch"]
