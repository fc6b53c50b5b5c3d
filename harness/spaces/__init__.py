"""The space: records (model), reading a file (load: JSON, grids, schema, rules), the rules."""
