"""`arrow`: a small table's rows, once, as the Arrow table st.table sends. Forty seats of a room draw
the same side table at the same moment, and every page draws the sidebar's prices: built from a list
of dicts, each st.table went through pandas (inferring a frame, renaming its columns) and then Arrow,
about 1 ms each; the same rows again are a dictionary lookup and the sending alone."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

#: distinct tables kept: a room's side tables and the prices in two languages
KEPT = 256


def arrow(rows: Sequence[Mapping[str, Any]], headers: Mapping[str, str] | None = None) -> pa.Table:
    """`rows` (dicts) as a table: a column for each key, in the order the keys first come, each under
    `headers`' name for it (its own if not given), empty where a row lacks it. Strings stay strings
    (st.table draws them as Markdown), a column of numbers stays numbers."""
    names = tuple(dict.fromkeys(name for row in rows for name in row))
    heads = tuple((headers or {}).get(name, name) for name in names)
    cells = tuple(tuple(row.get(name) for name in names) for row in rows)
    return _table(heads, cells)


@functools.lru_cache(maxsize=KEPT)
def _table(heads: tuple[str, ...], cells: tuple[tuple[Any, ...], ...]) -> pa.Table:
    columns = list(zip(*cells, strict=True)) if cells else [() for _ in heads]
    return pa.table({head: _column(column) for head, column in zip(heads, columns, strict=True)})


def _column(values: Sequence[Any]) -> pa.Array:
    """One column: a column of numbers as numbers, anything else as text (a mix of both, as text)."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values if v is not None):
        try:
            return pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
    return pa.array([None if v is None else str(v) for v in values], type=pa.string())
