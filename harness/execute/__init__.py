"""Running benchmarks: invocations, processes, output readers, batching, the pools, progress,
and the safety net (executable identity, scratch files, reaping stray processes).
"""
