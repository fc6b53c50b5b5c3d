"""Kernel-selection study: catalogue, hardware descriptors, static features, sampling, shapes."""
