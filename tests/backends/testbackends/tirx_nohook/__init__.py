"""A test-only backend package without register_backend() (the loader must reject it)."""
