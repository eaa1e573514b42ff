"""The side table and the sidebar's prices go to st.table as Arrow tables built once per distinct rows:
the same rows (forty seats drawing the same run) are the same table, cells keep their text and their
numbers, a row lacking a column leaves it empty, and headers are named in the page's language."""

from __future__ import annotations

from pages.ui import tables


def test_the_same_rows_on_forty_seats_are_one_table_built_once():
    rows = [{"version": "v1", "verdict": "REVISE"}, {"version": "v2", "verdict": "PASS"}]
    heads = {"version": "版本", "verdict": "结论"}
    first = tables.arrow(rows, heads)
    assert all(tables.arrow([dict(r) for r in rows], heads) is first for _ in range(40))
    assert first.column_names == ["版本", "结论"]
    assert first.to_pylist() == [{"版本": "v1", "结论": "REVISE"}, {"版本": "v2", "结论": "PASS"}]
    assert tables.arrow(rows, heads) is not tables.arrow([*rows, {"version": "v3", "verdict": "PASS"}], heads)


def test_cells_keep_text_and_numbers_and_a_missing_cell_is_empty():
    rows = [{"tool": "`search`", "calls": 3, "errors": 0}, {"tool": "`calc`", "calls": 1}]
    table = tables.arrow(rows)
    assert table.to_pylist() == [
        {"tool": "`search`", "calls": 3, "errors": 0},
        {"tool": "`calc`", "calls": 1, "errors": None},
    ]
    assert str(table.schema.field("calls").type) == "int64"
    mixed = tables.arrow([{"step": 1}, {"step": "2a"}])  # a column of both is text
    assert mixed.to_pylist() == [{"step": "1"}, {"step": "2a"}]


def test_no_rows_is_an_empty_table():
    assert tables.arrow([]).num_rows == 0
