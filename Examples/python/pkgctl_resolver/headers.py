"""Header fields: what a request may pass, and what a response gives back."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import List, Optional, Tuple, Union

HeaderInput = Union[Mapping[str, str], Iterable[Tuple[str, str]]]


def pairs(headers: Optional[HeaderInput]) -> List[Tuple[str, str]]:
    """`headers` as (name, value) pairs; TypeError unless a mapping or pairs of strings."""
    if headers is None:
        return []
    items = headers.items() if isinstance(headers, Mapping) else headers
    if isinstance(items, (str, bytes)):
        raise TypeError("headers must be a mapping or (name, value) pairs, not a string")
    result = []
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(part, str) for part in item)):
            raise TypeError(f"a header must be a (name, value) pair of str, not {item!r}")
        result.append(item)
    return result


class Headers(Mapping):
    """A response's header fields: a case-insensitive mapping whose `[name]` is the first
    value, `get_all(name)` every value in order, and `items()` every field as it came."""

    def __init__(self, fields: Iterable[Tuple[str, str]] = ()):
        self._fields = list(fields)

    def __getitem__(self, name: str) -> str:
        wanted = name.lower()
        for field, value in self._fields:
            if field.lower() == wanted:
                return value
        raise KeyError(name)

    def get_all(self, name: str) -> List[str]:
        """Every value of `name`, in order; [] when absent."""
        wanted = name.lower()
        return [value for field, value in self._fields if field.lower() == wanted]

    def items(self) -> List[Tuple[str, str]]:  # type: ignore[override]
        """Every field, repeated names included, in the order they came."""
        return list(self._fields)

    def __iter__(self) -> Iterator[str]:
        seen = set()
        for field, _ in self._fields:
            if field.lower() not in seen:
                seen.add(field.lower())
                yield field

    def __len__(self) -> int:
        return len({field.lower() for field, _ in self._fields})

    def __repr__(self) -> str:
        return f"Headers({self._fields!r})"
