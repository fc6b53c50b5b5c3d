"""The profile: its records (model), its one reader, its one writer, and how a sweep's
measurements become its results (scoring, results)."""
