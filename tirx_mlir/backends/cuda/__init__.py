"""The cuda backend (being written)."""


def register_backend() -> None:
    """Nothing registered yet."""
