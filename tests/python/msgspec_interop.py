"""Checks codec's encodings against msgspec 0.22.

Reads a JSON-lines manifest written by tests/msgspec_interop.rs (case name,
codec's MessagePack as hex, codec's JSON), and for each case: decodes both
with msgspec into the case's type, compares with the expected value built
here, and re-encodes it with msgspec (deterministic order). Writes one JSON
line per case: msgspec's encodings and any failure.
"""

import enum
import json
import sys
from typing import Optional, Union

import msgspec


class Point(msgspec.Struct):
    x: int
    y: int


class Circle(msgspec.Struct, tag=True):
    r: float


class Rect(msgspec.Struct, tag=True):
    w: float
    h: float


Shape = Union[Circle, Rect]


class Click(msgspec.Struct, tag_field="kind", tag="click"):
    x: int


class KeyPress(msgspec.Struct, tag_field="kind", tag="key"):
    code: str


Event = Union[Click, KeyPress]


class Low(msgspec.Struct, tag=1):
    pass


class High(msgspec.Struct, tag=2):
    level: int


Level = Union[Low, High]


class Color(enum.Enum):
    RED = "Red"
    GREEN = "Green"


class Palette(msgspec.Struct):
    main: Color
    others: list[Color]


class Blob(msgspec.Struct):
    data: bytes
    maybe: Optional[bytes]


class Options(msgspec.Struct):
    a: Optional[int]
    b: Optional[str]


class Lists(msgspec.Struct):
    ints: list[int]
    names: list[str]
    pairs: list[tuple[int, str]]


class Maps(msgspec.Struct):
    scores: dict[str, int]
    ids: set[int]
    names: frozenset[str]


class Wrap(msgspec.Struct, tag=True):
    inner: Shape


class Empty(msgspec.Struct, tag=True):
    pass


Outer = Union[Wrap, Empty]


class Doc(msgspec.Struct):
    shapes: list[Shape]
    event: Event
    outer: list[Outer]


class Row(msgspec.Struct, array_like=True):
    id: int
    name: str


class TaggedRow(msgspec.Struct, array_like=True, tag="AL"):
    a: int
    b: str


class Camel(msgspec.Struct, rename="camel"):
    user_id: int
    display_name: str


class Ints(msgspec.Struct):
    values: list[int]


class Text(msgspec.Struct):
    s: str


class Floats(msgspec.Struct):
    a: float
    b: float


BOUNDARY_INTS = [0, 127, 128, 255, 256, 65535, 65536, 2**32, -1, -32, -33, -128, -129, -(2**63), 2**64 - 1]

CASES = {
    "point": (Point, Point(x=1, y=-2)),
    "shape_circle": (Shape, Circle(r=1.5)),
    "shape_rect": (Shape, Rect(w=2.0, h=0.5)),
    "shape_merged_newtype": (Shape, Circle(r=3.25)),
    "event_click": (Event, Click(x=3)),
    "event_key": (Event, KeyPress(code="Enter")),
    "level_low": (Level, Low()),
    "level_high": (Level, High(level=9)),
    "palette": (Palette, Palette(main=Color.GREEN, others=[Color.RED, Color.GREEN])),
    "blob": (Blob, Blob(data=b"\x00\x01\xffbytes", maybe=None)),
    "blob_some": (Blob, Blob(data=b"", maybe=b"x" * 40)),
    "options_none": (Options, Options(a=None, b=None)),
    "options_some": (Options, Options(a=5, b="five")),
    "lists": (Lists, Lists(ints=[1, 2, 3], names=["a", "b"], pairs=[(1, "one"), (2, "two")])),
    "maps": (Maps, Maps(scores={"b": 2, "a": 1, "c": 3}, ids={300, 5, 70, 1}, names=frozenset({"z", "a", "m"}))),
    "doc": (Doc, Doc(shapes=[Circle(r=1.0), Rect(w=1.0, h=2.0)], event=KeyPress(code="q"), outer=[Wrap(inner=Rect(w=0.5, h=0.25)), Empty()])),
    "row": (Row, Row(id=7, name="seven")),
    "tagged_row": (TaggedRow, TaggedRow(a=1, b="x")),
    "camel": (Camel, Camel(user_id=1, display_name="Ada")),
    "ints": (Ints, Ints(values=BOUNDARY_INTS)),
    "text": (Text, Text(s="héllo ✓ \u2028 \"quoted\" \\ tab\t newline\n 𝄞")),
    "floats": (Floats, Floats(a=0.1, b=-1e300)),
}

MSGPACK = msgspec.msgpack.Encoder(order="deterministic")
JSON = msgspec.json.Encoder(order="deterministic")


def check(case):
    name = case["case"]
    typ, expected = CASES[name]
    out = {"case": name}
    problems = []
    try:
        got = msgspec.msgpack.decode(bytes.fromhex(case["msgpack"]), type=typ)
        if got != expected:
            problems.append(f"msgpack decoded to {got!r}, expected {expected!r}")
    except Exception as e:  # report, don't stop: one line per case
        problems.append(f"msgpack decode failed: {e}")
    try:
        got = msgspec.json.decode(case["json"].encode(), type=typ)
        if got != expected:
            problems.append(f"json decoded to {got!r}, expected {expected!r}")
    except Exception as e:
        problems.append(f"json decode failed: {e}")
    out["msgpack"] = MSGPACK.encode(expected).hex()
    out["json"] = JSON.encode(expected).decode()
    out["problems"] = problems
    return out


def main():
    manifest, results = sys.argv[1], sys.argv[2]
    with open(manifest) as f, open(results, "w") as out:
        for line in f:
            out.write(json.dumps(check(json.loads(line))) + "\n")


if __name__ == "__main__":
    main()
