#!/usr/bin/env python3
"""A minimal fedsim external objective worker (docs/external-objectives.md).

fedsim writes one request per line on stdin:
    {"id": 17, "agent": 3, "iteration": 5, "x": [0.1, 0.7]}
and reads one answer per line on stdout:
    {"id": 17, "y": -0.2, "f": -0.2}
(or {"id": 17, "error": "why"}). Print nothing else on stdout: logs go to stderr, which fedsim
writes to the worker's log file.

The objective, maximised at x = (0.3, ..., 0.3) with value 0: f(x) = -sum_i (x_i - 0.3)^2,
observed with Gaussian noise (standard deviation 0.01). The noise is drawn from a generator
seeded by the request's agent and iteration, never by the worker's own history: any worker
gives the same answer to the same request, so runs are reproducible with several workers.
"""
import json
import random
import sys

NOISE = 0.01


def evaluate(agent, iteration, x):
    f = -sum((xi - 0.3) ** 2 for xi in x)
    rng = random.Random(f"quadratic-{agent}-{iteration}")
    return f + rng.gauss(0.0, NOISE), f


def main():
    for line in sys.stdin:
        request = json.loads(line)
        try:
            y, f = evaluate(request["agent"], request["iteration"], request["x"])
            answer = {"id": request["id"], "y": y, "f": f}
        except Exception as e:  # report it: fedsim counts it and follows on_failure
            answer = {"id": request["id"], "error": str(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
