"""Actions of ``benchspace cutlass``: one module each, with add_arguments(parser) and run(args)."""
