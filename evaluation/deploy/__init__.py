"""Shipping a selector: rank the candidates of a shape, write the bucketed kernel header.

Last wing of ``evaluation`` (order: cutlass → selector → study → deploy): may import every
other wing; nothing in ``evaluation`` imports it. Within it: ``select`` → ``select_format``
and ``kernel_header``.
"""
