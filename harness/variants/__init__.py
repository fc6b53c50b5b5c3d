"""Compile-time variants: keys, builds, the build pipeline and their sweep."""
