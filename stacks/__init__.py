"""This repository's environments. Each module defines CONFIG, a karpenter_gpu.PlatformConfig."""

from . import dev, fleet, prod, staging

ENVIRONMENTS = (dev.CONFIG, staging.CONFIG, prod.CONFIG, fleet.CONFIG)
