"""benchspace: a tuning harness for libraries whose speed hangs on compile-time constants."""

__version__ = "0.1.0"
