"""A loopback HTTP server for download tests (never touches the real network)."""

from __future__ import annotations

import collections
import http.server
import threading
import time
from typing import Any


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        srv = self.server
        with srv.lock:
            srv.hits[self.path] += 1
            hit = srv.hits[self.path]
        body = srv.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        if srv.delay:
            time.sleep(srv.delay)
        start = 0
        rng = self.headers.get('Range')
        if rng and srv.ranges:
            srv.range_requests.append((self.path, rng))
            start = int(rng.split('=')[1].split('-')[0])
            if start >= len(body):
                self.send_response(416)
                self.send_header('Content-Length', '0')
                self.end_headers()
                return
            self.send_response(206)
            self.send_header('Content-Range', f'bytes {start}-{len(body) - 1}/{len(body)}')
        else:
            self.send_response(200)
        payload = body[start:]
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        if hit <= srv.truncate_first.get(self.path, 0):
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(payload)


class LoopbackServer:
    """Serves ``files`` (path -> bytes) on 127.0.0.1 from a thread."""

    def __init__(self) -> None:
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.files = {}
        self.httpd.hits = collections.Counter()
        self.httpd.lock = threading.Lock()
        self.httpd.delay = 0.0
        self.httpd.ranges = True
        self.httpd.truncate_first = {}
        self.httpd.range_requests = []
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f'http://{host}:{port}'

    @property
    def files(self) -> dict[str, bytes]:
        return self.httpd.files

    @property
    def hits(self) -> collections.Counter[str]:
        return self.httpd.hits

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)
