#!/usr/bin/env python3
"""Read a gzipped pprof profile (profile.proto) without protobuf libraries: the wire format
decoded by hand from the field numbers of report/pprof/profile.proto, so that the tests check
tprof's encoder against a decoder that shares nothing with it.

As a module: read(path) -> Profile. As a program: pprofread.py FILE prints the samples as
"value,value,... frame;frame;..." lines (root first, inline chains expanded, innermost last),
one per sample, after a header line of the sample types."""
import gzip
import sys


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """(field number, value) of a message: ints for varints, bytes for length-delimited."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wire == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wire == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError(f"wire type {wire} of field {num}")
        out.append((num, v))
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def ints(v):
    """A repeated integer field: packed (bytes) or one varint."""
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def message(b, spec):
    """Fields by name: spec maps a number to (name, kind), kind 'int', 'sint', 'ints', 'sints',
    'str', 'bytes', or a (spec) for a nested message; repeated kinds end in 's' or are lists."""
    m = {}
    for name, kind in spec.values():
        if isinstance(kind, list) or kind in ("ints", "sints"):
            m[name] = []
        elif kind in ("int", "sint"):
            m[name] = 0
        elif kind == "bool":
            m[name] = False
        else:
            m[name] = None
    for num, v in fields(b):
        if num not in spec:
            continue
        name, kind = spec[num]
        if isinstance(kind, list):
            m[name].append(message(v, kind[0]) if kind[0] != "str" else v.decode())
        elif isinstance(kind, dict):
            m[name] = message(v, kind)
        elif kind == "ints":
            m[name] += ints(v)
        elif kind == "sints":
            m[name] += [signed(x) for x in ints(v)]
        elif kind == "int":
            m[name] = v
        elif kind == "sint":
            m[name] = signed(v)
        elif kind == "bool":
            m[name] = bool(v)
    return m


VALUE_TYPE = {1: ("type", "sint"), 2: ("unit", "sint")}
LABEL = {1: ("key", "sint"), 2: ("str", "sint"), 3: ("num", "sint"), 4: ("num_unit", "sint")}
SAMPLE = {1: ("location_id", "ints"), 2: ("value", "sints"), 3: ("label", [LABEL])}
MAPPING = {1: ("id", "int"), 2: ("memory_start", "int"), 3: ("memory_limit", "int"),
           4: ("file_offset", "int"), 5: ("filename", "sint"), 6: ("build_id", "sint"),
           7: ("has_functions", "bool"), 8: ("has_filenames", "bool"),
           9: ("has_line_numbers", "bool"), 10: ("has_inline_frames", "bool")}
LINE = {1: ("function_id", "int"), 2: ("line", "sint")}
LOCATION = {1: ("id", "int"), 2: ("mapping_id", "int"), 3: ("address", "int"),
            4: ("line", [LINE]), 5: ("is_folded", "bool")}
FUNCTION = {1: ("id", "int"), 2: ("name", "sint"), 3: ("system_name", "sint"),
            4: ("filename", "sint"), 5: ("start_line", "sint")}
PROFILE = {1: ("sample_type", [VALUE_TYPE]), 2: ("sample", [SAMPLE]), 3: ("mapping", [MAPPING]),
           4: ("location", [LOCATION]), 5: ("function", [FUNCTION]), 6: ("string_table", ["str"]),
           7: ("drop_frames", "sint"), 8: ("keep_frames", "sint"), 9: ("time_nanos", "sint"),
           10: ("duration_nanos", "sint"), 11: ("period_type", VALUE_TYPE),
           12: ("period", "sint"), 13: ("comment", "sints"), 14: ("default_sample_type", "sint")}


class Profile:
    """A decoded profile with its references checked (ids nonzero and unique, every id used is
    defined, one value per sample type, string_table[0] empty) and resolved."""

    def __init__(self, raw):
        p = message(raw, PROFILE)
        self.raw = p
        st = p["string_table"]
        if not st or st[0] != "":
            raise ValueError("string_table[0] is not empty")
        s = lambda i: st[i]
        self.types = [(s(v["type"]), s(v["unit"])) for v in p["sample_type"]]
        self.default = s(p["default_sample_type"]) if p["default_sample_type"] else None
        self.period_type = (s(p["period_type"]["type"]), s(p["period_type"]["unit"])) \
            if p["period_type"] else None
        self.period = p["period"]
        self.comments = [s(c) for c in p["comment"]]
        self.time_nanos, self.duration_nanos = p["time_nanos"], p["duration_nanos"]

        def table(rows, what):
            t = {}
            for r in rows:
                if not r["id"] or r["id"] in t:
                    raise ValueError(f"{what} id {r['id']}: zero or twice")
                t[r["id"]] = r
            return t
        self.mappings = table(p["mapping"], "mapping")
        for m in self.mappings.values():
            m["filename"], m["build_id"] = s(m["filename"]), s(m["build_id"])
        self.functions = table(p["function"], "function")
        for f in self.functions.values():
            f["name"], f["system_name"], f["filename"] = s(f["name"]), s(f["system_name"]), s(f["filename"])
        self.locations = table(p["location"], "location")
        for loc in self.locations.values():
            if loc["mapping_id"] and loc["mapping_id"] not in self.mappings:
                raise ValueError(f"location {loc['id']}: no mapping {loc['mapping_id']}")
            for ln in loc["line"]:
                if ln["function_id"] not in self.functions:
                    raise ValueError(f"location {loc['id']}: no function {ln['function_id']}")
        self.samples = []
        for x in p["sample"]:
            if len(x["value"]) != len(self.types):
                raise ValueError(f"a sample with {len(x['value'])} values for {len(self.types)} types")
            for i in x["location_id"]:
                if i not in self.locations:
                    raise ValueError(f"a sample's location {i} is not defined")
            labels = {}
            for lb in x["label"]:
                labels[s(lb["key"])] = s(lb["str"]) if lb["str"] else (lb["num"], s(lb["num_unit"]))
            self.samples.append({"locations": [self.locations[i] for i in x["location_id"]],
                                 "values": x["value"], "labels": labels})

    def lines(self, loc):
        """A location's (function, file, line), innermost inlined function first."""
        return [(self.functions[ln["function_id"]]["name"],
                 self.functions[ln["function_id"]]["filename"], ln["line"]) for ln in loc["line"]]

    def stack(self, sample):
        """A sample's frames by function name, root first, inline chains expanded."""
        out = []
        for loc in reversed(sample["locations"]):
            out += [name for name, _, _ in reversed(self.lines(loc))]
        return out

    def index(self, type_name):
        return [t for t, _ in self.types].index(type_name)

    def total(self, type_name):
        i = self.index(type_name)
        return sum(x["values"][i] for x in self.samples)

    def by_stack(self, type_name):
        """Sum of one value per stack (frames joined by ';', root first)."""
        i, out = self.index(type_name), {}
        for x in self.samples:
            k = ";".join(self.stack(x))
            out[k] = out.get(k, 0) + x["values"][i]
        return out


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"\x1f\x8b":
        raise ValueError(f"{path}: not gzipped")
    return Profile(gzip.decompress(data))


if __name__ == "__main__":
    prof = read(sys.argv[1])
    print(",".join(f"{t}/{u}" for t, u in prof.types))
    for x in prof.samples:
        print(",".join(map(str, x["values"])), ";".join(prof.stack(x)))
