"""The errors every backend raises when a database cannot be used, or could not be reached for one transaction."""

from __future__ import annotations


class StorageError(RuntimeError):
    """The database is unusable (newer schema than this code, integrity failure)."""


class ConnectionLost(StorageError):
    """The connection to the database server dropped before a transaction committed (the server restarted, failed
    over, or ended the session), and the one retry on a fresh connection could not run it either: nothing of that
    transaction was stored."""


class CommitUncertain(StorageError):
    """The connection dropped after the ``COMMIT`` of a write was sent and before its answer came: the write may or
    may not be stored. Only the caller can tell (by reading what the write would have left behind); a write that
    can tell runs its body again, which finds its own change there or none."""
