"""What the study measures and how: GPUs, kernels, shapes, the build, the driver, the dataset.

First wing of ``evaluation`` (order: cutlass → selector → study → deploy): imports only
``harness`` and the package root, no other wing. Within it: ``hardware`` (GPU descriptors)
→ ``catalogue`` → ``smem`` → ``spill`` → ``kernel_set``; ``shapes`` → ``shape_draw`` /
``shape_file``; ``ptxas`` / ``batches`` / ``nvcc`` → ``batch_source`` / ``batch_index`` →
``build``; ``driver_csv``; ``space``; the data model: ``dataset`` (the one record of a
measured dataset and its views) → ``dataset_runs`` (runs and rounds, the upgrades between
versions) → ``dataset_read`` (the one reader, every version), and ``dataset_export``; each
``x_format`` renders what ``x`` computes.
"""
