"""Checks the msgspec classes codec generates against codec's bytes.

Arguments: the generated module, a JSON-lines manifest written by
tests/python_classes.rs (case name, the type to decode as, the class
expected, codec's MessagePack as hex and JSON, a Python expression building
the same value, given the msgspec format it is for as `fmt`, or nothing),
and the results file. For each case: decodes codec's bytes
into the generated type, re-encodes them (deterministic order), and encodes
the value built in Python, and reads the value as codec::to_stored wrote it
with the module's from_stored. A case marked `refused` holds bytes codec
refuses: both decodes must raise msgspec.ValidationError. A case with a
`stored_error` holds stored bytes from_stored must refuse with that text.
Writes one JSON line per case.
"""

import importlib.util
import json
import sys

import msgspec

spec = importlib.util.spec_from_file_location("models", sys.argv[1])
models = importlib.util.module_from_spec(spec)
sys.modules["models"] = models
spec.loader.exec_module(models)


def encoder(module):
    """Encodes with sets and maps sorted, but for maps with integer keys,
    which msgspec cannot sort: those keep their order (built sorted here)."""
    deterministic = module.Encoder(order="deterministic")
    insertion = module.Encoder()

    def encode(value):
        try:
            return deterministic.encode(value)
        except TypeError as e:
            if "str keys" not in str(e):
                raise
            return insertion.encode(value)

    return encode


mp_encode = encoder(msgspec.msgpack)
json_encode = encoder(msgspec.json)

with open(sys.argv[2]) as manifest, open(sys.argv[3], "w") as results:
    for line in manifest:
        case = json.loads(line)
        out = {"case": case["case"], "problems": []}
        try:
            ty = eval(case["type"], vars(models))
            if case["stored_error"] is not None:
                try:
                    got = models.from_stored(bytes.fromhex(case["stored"]), ty)
                    out["problems"].append(f"from_stored read {got!r}")
                except (models.StoredValueError, TypeError) as e:
                    if case["stored_error"] not in str(e):
                        out["problems"].append(f"from_stored said: {e}")
                results.write(json.dumps(out) + "\n")
                continue
            if case["refused"]:
                for fmt, data in (
                    (msgspec.msgpack, bytes.fromhex(case["msgpack"])),
                    (msgspec.json, case["json"]),
                ):
                    try:
                        got = fmt.decode(data, type=ty)
                        out["problems"].append(f"{fmt.__name__} read {got!r}")
                    except msgspec.ValidationError:
                        pass
                results.write(json.dumps(out) + "\n")
                continue
            from_mp = msgspec.msgpack.decode(bytes.fromhex(case["msgpack"]), type=ty)
            from_json = msgspec.json.decode(case["json"], type=ty)
            for got in (from_mp, from_json):
                if type(got).__name__ != case["class"]:
                    out["problems"].append(
                        f"decoded a {type(got).__name__}, expected a {case['class']}"
                    )
            out["msgpack"] = mp_encode(from_mp).hex()
            out["json"] = json_encode(from_json).decode()
            # `fmt` is the format the value is built for (a `msgspec.Raw`
            # holds bytes of one format).
            built = {}
            for fmt, decoded in ((msgspec.msgpack, from_mp), (msgspec.json, from_json)):
                if not case["python"]:
                    break
                built[fmt] = eval(case["python"], {**vars(models), "fmt": fmt})
                if built[fmt] != decoded:
                    out["problems"].append(f"built {built[fmt]!r}, decoded {decoded!r}")
            if built:
                out["built_msgpack"] = mp_encode(built[msgspec.msgpack]).hex()
                out["built_json"] = json_encode(built[msgspec.json]).decode()
            stored = models.from_stored(bytes.fromhex(case["stored"]), ty)
            if stored != from_mp:
                out["problems"].append(f"from_stored read {stored!r}, expected {from_mp!r}")
        except Exception as e:  # reported per case, with the others
            out["problems"].append(f"{type(e).__name__}: {e}")
        results.write(json.dumps(out) + "\n")
