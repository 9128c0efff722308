#!/usr/bin/env python3
"""Checks a fedsim live stream (docs/stream.md): every line one JSON object valid under the
schema (docs/stream.schema.json, with Debian's python3-jsonschema), the first a start line and
the last an end line, and in virtual time no line earlier than the one before it.
Usage: validate_stream.py SCHEMA STREAM (- for standard input).
Prints the number of lines of each type as one JSON object; exits 1 naming the first bad line."""
import json
import sys

import jsonschema


def main():
    schema_file, stream_file = sys.argv[1], sys.argv[2]
    with open(schema_file) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    text = sys.stdin.read() if stream_file == "-" else open(stream_file).read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        sys.exit("the stream does not end with a newline")
    counts = {}
    clock = None
    last_t = float("-inf")
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"line {number}: not JSON ({e})")
        errors = sorted(validator.iter_errors(record), key=lambda e: list(e.path))
        if errors:
            sys.exit(f"line {number}: {errors[0].message} at {list(errors[0].path)}: {line[:200]}")
        kind = record["type"]
        if (number == 1) != (kind == "start"):
            sys.exit(f"line {number}: a start line must be the first, and only the first")
        if (number == len(lines)) != (kind == "end"):
            sys.exit(f"line {number}: an end line must be the last, and only the last")
        if kind == "start":
            clock = record["clock"]
        elif clock == "virtual" and kind != "end" and record["t"] is not None:
            if record["t"] < last_t:
                sys.exit(f"line {number}: t {record['t']} before the line above ({last_t})")
            last_t = record["t"]
        counts[kind] = counts.get(kind, 0) + 1
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
