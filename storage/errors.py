"""The error every backend raises when a database cannot be used."""

from __future__ import annotations


class StorageError(RuntimeError):
    """The database is unusable (newer schema than this code, integrity failure)."""
