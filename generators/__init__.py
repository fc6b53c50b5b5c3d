"""Header generation: profile -> bucketed constexpr header, and review/port of such headers."""
