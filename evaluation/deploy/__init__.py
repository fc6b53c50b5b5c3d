"""Shipping a selector: rank the candidates of a shape, grow and check the kernel header.

Last wing of ``evaluation`` (order: cutlass → selector → study → deploy): may import every
other wing; nothing in ``evaluation`` imports it. Within it: ``select`` → ``select_format``;
``shape_sample`` and ``dispatch_tree`` → ``kernel_header`` (the tree grown from the selector,
rendered as C++) → ``header_check`` (and its text); ``header_study`` (header vs
select on held-out shapes). Tune my shapes: ``user_shapes`` and ``select`` → ``shortlist`` (the
top K per shape as a space; ``ranked_candidates`` adds cuBLASLt's listed configurations,
the ranker's top k) → ``measured_header`` (the header from measured winners, through
``kernel_header``) and ``shortlist_study`` (regret and GPU time against K, through
``header_study``) → ``shortlist_format``.
"""
