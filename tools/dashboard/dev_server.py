#!/usr/bin/python3
"""Development server for the fedsim dashboard page (Python 3 standard library only).

Serves index.html, dashboard.js and dashboard.css from this folder and replays stream files
(docs/stream.md) on /events as server-sent events, as fedsim's Beast server does: one
`data: <line>` message per stream line (observation and pull lines filtered out), then
`event: done`. A browser that connects late first gets every line released so far, then the
live ones.

  /usr/bin/python3 tools/dashboard/dev_server.py /tmp/samples/fbo.jsonl --delay 0.2
  /usr/bin/python3 tools/dashboard/dev_server.py a.jsonl b.jsonl c.jsonl --sweep   # fake sweep
  /usr/bin/python3 tools/dashboard/dev_server.py run.jsonl --hold 30   # stream stays open 30 s

--delay S waits S seconds after each round (Fed-PNE: phase) line; the replay clock starts when
the server starts (--clock server, like a live run) or anew for each connection (--clock
connection). --sweep (automatic with several files) adds `run` and `point` fields: point
"file=<name>" (or --points P1 P2 ...), run "<point>/seed=<seed>". --hold S keeps the
connection open S seconds before `done` (--hold -1: never send done). --drop-after N breaks the
first connection after N lines (the browser reconnects and gets the replay). Port: --port (8765).
"""
import argparse
import http.server
import json
import os
import socketserver
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/dashboard.js": ("dashboard.js", "text/javascript; charset=utf-8"),
          "/dashboard.css": ("dashboard.css", "text/css; charset=utf-8")}


def load(args):
    """The lines to send, each with its release offset in seconds."""
    sweep = args.sweep or len(args.files) > 1
    out, offset, used = [], 0.0, set()
    for i, path in enumerate(args.files):
        name = os.path.splitext(os.path.basename(path))[0]
        point = args.points[i] if args.points and i < len(args.points) else f"file={name}"
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(l) for l in f if l.strip()]
        seed = next((l.get("seed") for l in lines if l.get("type") == "start"), i)
        run = f"{point}/seed={seed}"
        if run in used:
            run = f"{point}/seed={seed}-{i}"
        used.add(run)
        for d in lines:
            if d.get("type") in ("observation", "pull"):
                continue
            if sweep:
                d["run"] = run
                d["point"] = point
            out.append((offset, json.dumps(d, separators=(",", ":"))))
            if d.get("type") in ("round", "phase"):
                offset += args.delay
    return out


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):
        if not self.server.quiet:
            sys.stderr.write("dev_server: " + (fmt % a) + "\n")

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/events":
            return self.events()
        if path not in ASSETS:
            self.send_error(404)
            return
        name, ctype = ASSETS[path]
        with open(os.path.join(HERE, name), "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def events(self):
        srv = self.server
        t0 = srv.t0 if srv.clock == "server" else time.monotonic()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        srv.connections += 1
        drop = srv.drop_after if srv.connections == 1 else 0
        try:
            for i, (offset, line) in enumerate(srv.lines):
                if drop and i == drop:  # --drop-after: the first connection breaks here
                    return
                wait = t0 + offset - time.monotonic()
                if wait > 0:
                    self.wfile.flush()
                    time.sleep(wait)
                self.wfile.write(b"data: " + line.encode() + b"\n\n")
            self.wfile.flush()
            if srv.hold < 0:
                while True:
                    time.sleep(1)
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            end = time.monotonic() + srv.hold
            while time.monotonic() < end:
                time.sleep(min(1.0, max(0.0, end - time.monotonic())))
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
            self.wfile.write(b"event: done\ndata: {}\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="stream files (fedsim run --stream)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--delay", type=float, default=0.0, help="seconds after each round/phase line")
    p.add_argument("--clock", choices=("server", "connection"), default="server")
    p.add_argument("--hold", type=float, default=0.0, help="seconds to keep the stream open before done (-1: forever)")
    p.add_argument("--sweep", action="store_true", help="add run/point fields (implied by several files)")
    p.add_argument("--points", nargs="*", help="grid point names, one per file")
    p.add_argument("--drop-after", type=int, default=0, help="close the first connection after N lines (test reconnects)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args()
    srv = Server((args.host, args.port), Handler)
    srv.lines = load(args)
    srv.t0 = time.monotonic()
    srv.clock, srv.hold, srv.quiet = args.clock, args.hold, args.quiet
    srv.drop_after, srv.connections = args.drop_after, 0
    print(f"dev_server: http://{args.host}:{srv.server_address[1]}/  ({len(srv.lines)} lines)", file=sys.stderr, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
