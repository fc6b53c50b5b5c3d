"""A generated GEMM header as a library you can call: ``benchspace cutlass library``.

``header_read`` reads back what a header dispatches to (CUTLASS kernels, pinned cuBLASLt
configurations, ``cublas``); ``emit`` renders the CMake project (kernel sources, the dispatch
behind ``benchspace::gemm::run``, the public header, ``verify_and_time``) from
``templates/`` and writes it.
"""
