"""fedsim.run's observer (docs/python.md, "Observers"): what the user gives, checked before the
run starts, made into the function of one line that the C++ half (python/bindings/
python_observer.*) calls with each line of the run's live stream (docs/stream.md)."""
from __future__ import annotations

import json
from typing import Any, Callable, Tuple

# The stream's record types (docs/stream.md), each the name of the method an observer object
# may have to receive them.
RECORD_TYPES = ("start", "agent", "observation", "pull", "fault", "round", "privacy", "phase", "end")


def deliverer(observer: Any) -> Tuple[Callable[[str], None], Tuple[str, ...]]:
    """The function of one stream line (a JSON object) that hands it, as a dict, to `observer`:
    to its method named after the record's type when it has any such method (records of the
    other types are not delivered), else to `observer` itself when it is callable; and the
    types it takes (() for every type): the C++ half skips the other lines without taking the
    GIL.

    Raises TypeError when `observer` is neither, or has such an attribute that is not callable.
    """
    methods = {}
    for name in RECORD_TYPES:
        method = getattr(observer, name, None)
        if method is None:
            continue
        if not callable(method):
            raise TypeError(f"observer.{name}: not callable (a method {name}(record) receives the "
                            f"{name!r} records)")
        methods[name] = method
    if methods:
        def deliver(line: str) -> None:
            record = json.loads(line)
            method = methods.get(record["type"])
            if method is not None:
                method(record)
        return deliver, tuple(methods)
    if callable(observer):
        def deliver_all(line: str) -> None:
            observer(json.loads(line))
        return deliver_all, ()
    raise TypeError(f"observer: give a callable taking one record (a dict), or an object with any of "
                    f"the methods {', '.join(RECORD_TYPES)}; got {type(observer).__name__}")
