"""What the study measures and how: GPUs, kernels, shapes, the build, the driver, the dataset.

First wing of ``evaluation`` (order: cutlass → selector → study → deploy): imports only
``harness`` and the package root, no other wing. Within it: ``hardware`` (GPU descriptors)
→ ``catalogue`` → ``smem`` → ``spill`` → ``kernel_set``; ``shapes`` → ``shape_draw`` /
``shape_file``; ``ptxas`` / ``batches`` / ``nvcc`` → ``batch_source`` / ``batch_index`` →
``build``; ``driver_csv``; ``space``; ``dataset`` and ``dataset_export``; ``same_round`` (same-round
cuBLAS, the v2 view, loading either version); each ``x_format``
renders what ``x`` computes.
"""
