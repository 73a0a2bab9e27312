"""A submodule of the broken test backend (imported by its hook before it fails)."""

VALUE = 42
