"""The oracle: Karpenter v1.14.1's own Go code answers generated cases that the Python core answers too."""
