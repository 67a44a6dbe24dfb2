"""Unique op names within one execution environment, shared by every Scope built on it."""

from __future__ import annotations

import re
import threading

__all__ = ["NameRegistry", "CountingNameRegistry", "NAME_PATTERN"]

NAME_PATTERN = re.compile(r"[A-Za-z0-9.][A-Za-z0-9_.\-]*")

VALID_NAMES: set[str] = set()
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
        if type(name) is str and name in VALID_NAMES:
            return name
        if not isinstance(name, str) or NAME_PATTERN.fullmatch(name) is None:
            raise self.invalid(name, what)
        if len(VALID_NAMES) < _VALID_KEPT:
            VALID_NAMES.add(name)
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
            self._reservations = rid = self._reservations + 1
            ids = self._ids.get(prefix)
            if ids is None:
                ids = self._ids[prefix] = {}
            previous = n = ids.get(name)
            if n is None:
                self._journal.append((prefix, name, None, rid))
                ids[name] = 1
                return name
            candidate = f"{name}_{n}"
            while candidate in ids:
                n += 1
                candidate = f"{name}_{n}"
            journal = self._journal
            journal.append((prefix, name, previous, rid))
            ids[name] = n + 1
            journal.append((prefix, candidate, None, rid))
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


_SUFFIXED = re.compile(r"(.+)_([1-9][0-9]*)")


class CountingNameRegistry(NameRegistry):
    """A registry that remembers the names asked for, each with a counter, and not every name
    it hands out (TensorFlow Java's ``NameScope``): a loop that adds ops under the same names
    keeps it the same size. Names stay unique: a name of the form ``base_N`` that the counter
    of ``base`` handed out already is taken. Once more than ``maxPrefixes`` sub-scopes are
    known, the oldest are forgotten when a construction commits (their names may then come
    again, which an environment that compares its ops by identity allows).

    Example:
        >>> names = CountingNameRegistry()
        >>> [names.makeUnique("", "Add") for _ in range(3)], names.makeUnique("", "Add_1")
        (['Add', 'Add_1', 'Add_2'], 'Add_1_1')
    """

    def __init__(
        self,
        lock: threading.RLock | None = None,
        valueError: type[ValueError] = ValueError,
        typeError: type[TypeError] = TypeError,
        maxPrefixes: int = 4096,
    ) -> None:
        super().__init__(lock, valueError, typeError)
        self._maxPrefixes = maxPrefixes

    def makeUnique(self, prefix: str, name: str) -> str:
        """Reserves and returns ``name`` under ``prefix``, suffixed ``_N`` if already taken."""
        with self.lock:
            self._reservations += 1
            rid = self._reservations
            ids = self._ids.get(prefix)
            if ids is None:
                ids = self._ids[prefix] = {}
            n = ids.get(name)
            if n is None and not _counted(ids, name):
                self._journal.append((prefix, name, None, rid))
                ids[name] = 1
                return name
            k = 1 if n is None else n
            candidate = f"{name}_{k}"
            while candidate in ids or _counted(ids, candidate):
                k += 1
                candidate = f"{name}_{k}"
            self._journal.append((prefix, name, n, rid))
            ids[name] = k + 1
            return candidate

    def isTaken(self, prefix: str, name: str) -> bool:
        """Whether ``name`` was handed out under ``prefix``."""
        with self.lock:
            ids = self._ids.get(prefix)
            return ids is not None and (name in ids or _counted(ids, name))

    def commit(self) -> None:
        """Forgets the journal, and the oldest sub-scopes beyond ``maxPrefixes``."""
        with self.lock:
            super().commit()
            extra = len(self._ids) - self._maxPrefixes
            if extra > 0:
                for prefix in [p for p in self._ids if p][:extra]:
                    del self._ids[prefix]


def _counted(ids: dict[str, int], name: str) -> bool:
    """Whether ``name`` is ``base_N`` for a ``base`` whose counter handed out ``N`` already."""
    found = _SUFFIXED.fullmatch(name)
    return found is not None and int(found.group(2)) < ids.get(found.group(1), 0)
