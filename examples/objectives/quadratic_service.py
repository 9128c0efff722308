#!/usr/bin/env python3
"""A loopback TCP evaluation service for fedsim's tcp objective (docs/external-objectives.md).

    python3 examples/objectives/quadratic_service.py --port 0      # a free port
    python3 examples/objectives/quadratic_service.py --port 5000

It listens on 127.0.0.1 and prints its port alone on its first stdout line (then nothing else
on stdout), so a script can start it with --port 0 and read where it is. Each connection is one
fedsim worker: line-delimited JSON requests, answered in order, one line each. Connections are
served concurrently. The function is quadratic.py's, imported from it: for the same request
the service answers exactly what the command worker answers, so a scenario run with
kind = "tcp" writes the same records as with kind = "command" and the same seed.
"""
import argparse
import json
import os
import socketserver
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quadratic import evaluate  # noqa: E402  (the same function and noise as the command worker)


def answer(line):
    request = json.loads(line)
    try:
        y, f = evaluate(request["agent"], request["iteration"], request["x"])
        return {"id": request["id"], "y": y, "f": f}
    except Exception as e:  # reported to fedsim, which counts it and follows on_failure
        return {"id": request["id"], "error": str(e)}


class Connection(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            try:
                reply = answer(line)
            except Exception as e:  # not JSON, no id: say so (fedsim counts a bad line)
                sys.stderr.write("quadratic_service: bad request: %s\n" % e)
                return
            self.wfile.write((json.dumps(reply) + "\n").encode())
            self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    args = parser.parse_args()
    with Server(("127.0.0.1", args.port), Connection) as server:
        print(server.server_address[1], flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
