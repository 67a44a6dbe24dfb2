"""Unique op names within one execution environment, shared by every Scope built on it."""

from __future__ import annotations

import re
import threading

__all__ = ["NameRegistry", "NAME_PATTERN"]

NAME_PATTERN = re.compile(r"[A-Za-z0-9.][A-Za-z0-9_.\-]*")

_VALID: set[str] = set()
"""Names already found valid (op types, sub-scope names): most names are checked many times."""
_VALID_KEPT = 4096


class NameRegistry:
    """Which names are taken under each prefix of one environment, and how to reject bad ones.

    Op names and sub-scope names share one namespace per prefix, as in TensorFlow Java. Every
    change is journaled so that a failed op construction can be undone exactly (``mark`` /
    ``rollback``). All methods hold the environment's lock.

    The environment chooses the errors its scopes raise: ``valueError`` for a bad name or
    device, or a control dependency from elsewhere, ``typeError`` for a control dependency that
    is not an op (a ``tfops.Graph`` passes its own error classes; on its own, the package raises
    the builtins).

    Args:
        lock: the environment's lock (a new one by default).
        valueError: the ``ValueError`` subclass raised for invalid arguments.
        typeError: the ``TypeError`` subclass raised for arguments of the wrong kind.
    """

    def __init__(
        self,
        lock: threading.RLock | None = None,
        valueError: type[ValueError] = ValueError,
        typeError: type[TypeError] = TypeError,
    ) -> None:
        self.lock: threading.RLock = lock if lock is not None else threading.RLock()
        self.valueError = valueError
        self.typeError = typeError
        # prefix -> {id -> next suffix}; every name handed out is a key too, so an explicit
        # name such as "add_1" cannot collide with one made unique earlier or later.
        self._ids: dict[str, dict[str, int]] = {}
        # (prefix, name, its previous counter, the reservation that changed it)
        self._journal: list[tuple[str, str, int | None, int]] = []
        self._reservations = 0

    def checkName(self, name: object, what: str = "name") -> str:
        """Returns ``name`` if it is a valid op or scope name, else raises ``valueError``."""
        if type(name) is str and name in _VALID:
            return name
        if not isinstance(name, str) or NAME_PATTERN.fullmatch(name) is None:
            raise self.invalid(name, what)
        if len(_VALID) < _VALID_KEPT:
            _VALID.add(name)
        return name

    def invalid(self, name: object, what: str) -> ValueError:
        """The error for a name that does not match ``[A-Za-z0-9.][A-Za-z0-9_.\\-]*``."""
        return self.valueError(
            f"invalid {what} {name!r}: names must match [A-Za-z0-9.][A-Za-z0-9_.\\-]* "
            "(start with a letter, digit or '.', then letters, digits, '_', '.' or '-')"
        )

    def makeUnique(self, prefix: str, name: str) -> str:
        """Reserves and returns ``name`` under ``prefix``, suffixed ``_N`` if already taken."""
        with self.lock:
            self._reservations += 1
            rid = self._reservations
            ids = self._ids.get(prefix)
            if ids is None:
                ids = self._ids[prefix] = {}
            n = ids.get(name)
            if n is None:
                self._journal.append((prefix, name, None, rid))
                ids[name] = 1
                return name
            candidate = f"{name}_{n}"
            while candidate in ids:
                n += 1
                candidate = f"{name}_{n}"
            self._journal.append((prefix, name, ids[name], rid))
            ids[name] = n + 1
            self._journal.append((prefix, candidate, None, rid))
            ids[candidate] = 1
            return candidate

    def isTaken(self, prefix: str, name: str) -> bool:
        """Whether ``name`` was handed out under ``prefix``."""
        with self.lock:
            return name in self._ids.get(prefix, ())

    def mark(self) -> int:
        """A point to roll back to."""
        return len(self._journal)

    def commit(self) -> None:
        """Forgets the journal: what was reserved so far can no longer be rolled back."""
        with self.lock:
            self._journal.clear()

    def rollback(self, mark: int) -> None:
        """Undoes every reservation made since ``mark``."""
        with self.lock:
            while len(self._journal) > mark:
                self._undo()

    def lastReservation(self, prefix: str, name: str) -> int | None:
        """The reservation that handed out ``name`` under ``prefix``, if it is the last one
        made and not yet committed (so that :meth:`forget` can still undo it)."""
        with self.lock:
            if not self._journal:
                return None
            last = self._journal[-1]
            return last[3] if last[0] == prefix and last[1] == name and last[2] is None else None

    def forget(self, reservation: int) -> None:
        """Undoes ``reservation`` if nothing was reserved or committed since; else keeps it."""
        with self.lock:
            while self._journal and self._journal[-1][3] == reservation:
                self._undo()

    def _undo(self) -> None:
        prefix, name, previous, _ = self._journal.pop()
        ids = self._ids[prefix]
        if previous is None:
            del ids[name]
        else:
            ids[name] = previous

