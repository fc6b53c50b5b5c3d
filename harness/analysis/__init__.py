"""Analyses of a profile: sensitivity (noise floor, slices, verdicts), and the pruned space
it justifies."""
