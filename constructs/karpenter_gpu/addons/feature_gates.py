"""Re-export of :mod:`karpenter_gpu.feature_gates`, which moved below pools and overlays (they record the gates,
the controller values read them); this import path keeps working."""

from karpenter_gpu.feature_gates import (
    DEFAULT_ON, FeatureGate, GateNeed, feature_gate_summary, require_feature_gate, required_feature_gates,
)

__all__ = ["DEFAULT_ON", "FeatureGate", "GateNeed", "feature_gate_summary", "require_feature_gate",
           "required_feature_gates"]
