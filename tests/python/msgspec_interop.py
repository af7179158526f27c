"""Checks codec's encodings against msgspec 0.22.

Reads a JSON-lines manifest written by tests/msgspec_interop.rs (case name,
codec's MessagePack as hex, codec's JSON), and for each case: decodes both
with msgspec into the case's type, compares with the expected value built
here, and re-encodes it with msgspec (deterministic order). Writes one JSON
line per case: msgspec's encodings and any failure.
"""

import datetime as dt
import decimal
import enum
import json
import math
import sys
import uuid
from typing import Annotated, Any, Optional, Union

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


class Sparse(msgspec.Struct, omit_defaults=True):
    name: str
    count: int = 0
    level: int = 3
    note: Union[str, None] = None
    tags: list[str] = []


Scalar = Union[None, bool, int, float, str, list[int], dict[str, int]]


class Sets(msgspec.Struct):
    ints: set[int]
    strs: frozenset[str]
    bytes: set[bytes]
    bools: set[bool]
    tuples: set[tuple[int, str]]
    durations: set[dt.timedelta]


class Nested(msgspec.Struct):
    a: Optional[Optional[int]]
    b: Optional[Optional[int]]


class Times(msgspec.Struct):
    timeout: dt.timedelta
    at: dt.datetime


class Constrained(msgspec.Struct):
    percent: Annotated[int, msgspec.Meta(ge=0, le=100)]
    ratio: Annotated[float, msgspec.Meta(gt=0.0, lt=1.0, multiple_of=0.25)]
    login: Annotated[str, msgspec.Meta(min_length=1, max_length=8, pattern="^[a-z]+$")]
    tags: Annotated[list[str], msgspec.Meta(max_length=2)]
    scores: Annotated[dict[str, int], msgspec.Meta(min_length=1)]


class Envelope(msgspec.Struct):
    kind: str
    body: msgspec.Raw


UTC = dt.timezone.utc


def tz(**offset):
    return dt.timezone(dt.timedelta(**offset))


ESCAPES = "".join(map(chr, range(0x20))) + "\x7f \" \\ / \u2028 \u2029 \ud7ff \ue000 \ufffd \U0010ffff 𝄞 é ✓"

BOUNDARY_INTS = [0, 127, 128, 255, 256, 65535, 65536, 2**32, -1, -32, -33, -128, -129, -(2**63), 2**64 - 1]

# Each case: the Python type and the value codec's encodings must decode to.
# An optional third element overrides the type and value for JSON, where a
# value has another form (a non-finite float is null, a Raw holds JSON text).
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
    "omit_defaults_all_default": (Sparse, Sparse(name="s")),
    "omit_defaults_none_default": (Sparse, Sparse(name="s", count=1, level=4, note="n", tags=["t"])),
    "duration_sub_second": (dt.timedelta, dt.timedelta(seconds=1.5)),
    "duration_micro": (dt.timedelta, dt.timedelta(microseconds=10)),
    "duration_multi_day": (dt.timedelta, dt.timedelta(days=1, seconds=30)),
    "duration_days_and_micro": (dt.timedelta, dt.timedelta(days=3, microseconds=1)),
    "duration_zero": (dt.timedelta, dt.timedelta(0)),
    "times": (Times, Times(timeout=dt.timedelta(days=1, hours=1), at=dt.datetime(2023, 11, 14, 22, 13, 20, 5000, tzinfo=UTC))),
    "system_time_pre_1970": (dt.datetime, dt.datetime(1959, 12, 31, 23, 59, 59, 1, tzinfo=UTC)),
    "system_time_far": (dt.datetime, dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=2**35)),
    "path": (str, "/tmp/dir/file name.txt"),
    "ip": (str, "2001:db8::1"),
    "socket": (str, "127.0.0.1:8080"),
    "nan": (float, math.nan, {"json": (Optional[float], None)}),
    "inf": (float, math.inf, {"json": (Optional[float], None)}),
    "neg_inf": (float, -math.inf, {"json": (Optional[float], None)}),
    "neg_zero": (float, -0.0),
    "float_magnitudes": (list[float], [1e300, 1e16, 1e15, 1e-7, 1e-5, 5e-324, 1.7976931348623157e308, 123456789.123, 1e22, 0.1 + 0.2, -2.5e-8]),
    "int_min": (int, -(2**63)),
    "int_max": (int, 2**63 - 1),
    "uint_max": (int, 2**64 - 1),
    "escapes": (str, ESCAPES),
    "scalar_nothing": (Scalar, None),
    "scalar_flag": (Scalar, False),
    "scalar_int": (Scalar, -129),
    "scalar_float": (Scalar, 2.5),
    "scalar_text": (Scalar, "2026-01-02"),
    "scalar_list": (Scalar, [1, -1]),
    "scalar_map": (Scalar, {"b": 2, "a": 1}),
    "sets": (Sets, Sets(
        ints={300, -5, 70, -1, 0},
        strs=frozenset({"z", "a", "é", "Z", ""}),
        bytes={b"b", b"", b"\xff", b"a\x00"},
        bools={True, False},
        tuples={(2, "a"), (1, "b"), (1, "a")},
        durations={dt.timedelta(days=1), dt.timedelta(seconds=1, microseconds=5), dt.timedelta(0)},
    )),
    "option_option_none": (Nested, Nested(a=None, b=3)),
    "constrained": (Constrained, Constrained(percent=100, ratio=0.75, login="ada", tags=["a", "b"], scores={"x": 1})),
    "any": (Any, {"a": [1, 2.5, None, True, "x", -(2**40)], "b": {}}),
    "raw": (
        Envelope,
        Envelope(kind="point", body=msgspec.Raw(msgspec.msgpack.encode(Point(x=1, y=-2)))),
        {"json": (Envelope, Envelope(kind="point", body=msgspec.Raw(msgspec.json.encode(Point(x=1, y=-2)))))},
    ),
    "datetime_utc": (dt.datetime, dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    "datetime_utc_fraction": (dt.datetime, dt.datetime(2026, 1, 2, 3, 4, 5, 500000, tzinfo=UTC)),
    "datetime_utc_micro": (dt.datetime, dt.datetime(2026, 1, 2, 3, 4, 5, 123, tzinfo=UTC)),
    "datetime_utc_pre_1970": (dt.datetime, dt.datetime(1960, 1, 2, 3, 4, 5, 1, tzinfo=UTC)),
    "datetime_offset": (dt.datetime, dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=tz(hours=2))),
    "datetime_negative_offset": (dt.datetime, dt.datetime(2026, 1, 2, 3, 4, 5, 250000, tzinfo=tz(hours=-5, minutes=-30))),
    "datetime_naive": (dt.datetime, dt.datetime(2026, 1, 2, 3, 4, 5)),
    "datetime_naive_fraction": (dt.datetime, dt.datetime(1969, 12, 31, 23, 59, 59, 123)),
    "date": (dt.date, dt.date(2024, 2, 29)),
    "date_pre_1970": (dt.date, dt.date(1, 1, 1)),
    "time_naive": (dt.time, dt.time(1, 2, 3)),
    "time_naive_fraction": (dt.time, dt.time(23, 59, 59, 400000)),
    "time_utc": (dt.time, dt.time(1, 2, 3, tzinfo=UTC)),
    "time_offset": (dt.time, dt.time(1, 2, 3, 5, tzinfo=tz(hours=2))),
    "timedelta_negative": (dt.timedelta, dt.timedelta(seconds=-1.5)),
    "timedelta_negative_days": (dt.timedelta, dt.timedelta(days=-1)),
    "decimal": (decimal.Decimal, decimal.Decimal("1.50")),
    "decimal_negative": (decimal.Decimal, decimal.Decimal("-0.001")),
    "decimal_tiny": (decimal.Decimal, decimal.Decimal("0.00000015")),
    "decimal_zero_scaled": (decimal.Decimal, decimal.Decimal("0.00000000")),
    "decimal_wide": (decimal.Decimal, decimal.Decimal("123456789012345678.9")),
    "uuid": (uuid.UUID, uuid.UUID("67e55044-10b1-426f-9247-bb680e5fe0c8")),
    "uuid_set": (set[uuid.UUID], {uuid.UUID(int=2), uuid.UUID(int=2**128 - 1), uuid.UUID(int=0)}),
    "date_set": (set[dt.date], {dt.date(2024, 1, 2), dt.date(1999, 12, 31)}),
}

MSGPACK = msgspec.msgpack.Encoder(order="deterministic")
JSON = msgspec.json.Encoder(order="deterministic")


def same(a, b):
    """Equality that also holds for NaN, and tells -0.0 from 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return str(a) == str(b)
    if isinstance(a, msgspec.Raw) and isinstance(b, msgspec.Raw):
        return bytes(a) == bytes(b)
    if isinstance(a, msgspec.Struct) and type(a) is type(b):
        return all(same(getattr(a, f), getattr(b, f)) for f in a.__struct_fields__)
    return type(a) is type(b) and a == b and (
        not isinstance(a, (dt.datetime, dt.time)) or (a.tzinfo is None) == (b.tzinfo is None)
    )


def check(case):
    name = case["case"]
    typ, expected, *rest = CASES[name]
    overrides = rest[0] if rest else {}
    json_type, json_expected = overrides.get("json", (typ, expected))
    out = {"case": name}
    problems = []
    try:
        got = msgspec.msgpack.decode(bytes.fromhex(case["msgpack"]), type=typ)
        if not same(got, expected):
            problems.append(f"msgpack decoded to {got!r}, expected {expected!r}")
    except Exception as e:  # report, don't stop: one line per case
        problems.append(f"msgpack decode failed: {e}")
    try:
        got = msgspec.json.decode(case["json"].encode(), type=json_type)
        if not same(got, json_expected):
            problems.append(f"json decoded to {got!r}, expected {json_expected!r}")
    except Exception as e:
        problems.append(f"json decode failed: {e}")
    out["msgpack"] = MSGPACK.encode(expected).hex()
    out["json"] = JSON.encode(json_expected).decode()
    out["problems"] = problems
    return out


def main():
    manifest, results = sys.argv[1], sys.argv[2]
    with open(manifest) as f, open(results, "w") as out:
        for line in f:
            out.write(json.dumps(check(json.loads(line))) + "\n")


if __name__ == "__main__":
    main()
