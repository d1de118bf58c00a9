"""What the Kubernetes API server makes of a manifest before Karpenter sees it: the CRDs (packaged, pinned), their
structural schema, defaulting and pruning, the CEL validation rules, object metadata, and the findings they give.

Pure Python, below the analyzers: ``analysis/`` (explain, diff) asks it what is admitted, ``check/`` (validate and
its rules) reports it. Upstream: kubernetes ``apiextensions-apiserver`` ``pkg/apiserver/schema`` and
``pkg/registry/customresource/validator.go``.
"""
