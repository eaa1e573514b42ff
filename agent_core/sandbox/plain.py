"""Plain data on the wire between the test harness and the code under test, without pickle.

Only exact builtin types cross: None, bool, int, float (nan and inf too), complex, str, bytes,
list, tuple, dict, set and frozenset. A subclass or any other object (say one whose `__eq__`
always says True) cannot be encoded, and a decoder rejects anything it did not expect, so what the
harness compares is always data it built itself. Containers travel as JSON arrays led by a tag.

This file runs inside the sandbox too (sent as source with the harness): stdlib only.
"""

import json

MAX_MESSAGE_BYTES = 8 << 20  # a value bigger than this cannot be checked
_BIG = 1 << 62  # ints past this travel as hex: decimal conversion of huge ints is quadratic


class NotPlain(Exception):
    """The value holds something that is not plain data; `type_name` names the offender."""

    def __init__(self, type_name):
        super().__init__(type_name)
        self.type_name = type_name


_TAGS: dict[type, str] = {list: "L", tuple: "T", set: "S", frozenset: "F"}


def _tree(value):
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is float:
        return value
    if kind is int:
        return value if -_BIG < value < _BIG else ["X", format(value, "x")]
    if kind is list or kind is tuple or kind is set or kind is frozenset:
        tag = _TAGS[kind]
        return [tag, *map(_tree, value)]
    if kind is dict:
        out = ["D"]
        for key, item in value.items():
            out += (_tree(key), _tree(item))
        return out
    if kind is bytes:
        return ["B", value.hex()]
    if kind is complex:
        return ["C", value.real, value.imag]
    raise NotPlain(kind.__name__)


def encode(value) -> bytes:
    """The value as bytes; raises NotPlain for anything but exact plain types (or too deep)."""
    try:
        return json.dumps(_tree(value), separators=(",", ":")).encode("utf-8", "surrogatepass")
    except RecursionError:
        raise NotPlain("structure nested too deeply") from None


def _value(node):
    kind = type(node)
    if node is None or kind is bool or kind is str or kind is int or kind is float:
        return node
    if kind is not list or not node or type(node[0]) is not str:
        raise ValueError("not a value")
    tag, items = node[0], node[1:]
    if tag == "L":
        return [_value(n) for n in items]
    if tag == "T":
        return tuple(_value(n) for n in items)
    if tag == "S":
        return {_value(n) for n in items}
    if tag == "F":
        return frozenset(_value(n) for n in items)
    if tag == "D":
        if len(items) % 2:
            raise ValueError("odd dict")
        return {_value(items[i]): _value(items[i + 1]) for i in range(0, len(items), 2)}
    if tag == "X" and len(items) == 1 and type(items[0]) is str:
        return int(items[0], 16)
    if tag == "B" and len(items) == 1 and type(items[0]) is str:
        return bytes.fromhex(items[0])
    if tag == "C" and len(items) == 2 and all(type(n) in (int, float) for n in items):
        return complex(items[0], items[1])
    raise ValueError(f"unknown tag {tag!r}")


def decode(data: bytes):
    """The value `data` stands for; ValueError for anything malformed, oversized or unexpected."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ValueError("value too large")
    try:
        return _value(json.loads(data.decode("utf-8", "surrogatepass")))
    except (RecursionError, TypeError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"malformed value: {type(exc).__name__}") from None
