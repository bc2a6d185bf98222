# SPDX-License-Identifier: LGPL-2.1-or-later
"""HTTPS transport: a thread per connection, HTTP/1.1 keep-alive, chunked watch streams, and a
"down" switch that closes the listening socket (new connections are refused) and resets every
open connection, idle or in the middle of a request."""

import select
import socket
import ssl
import struct
import threading
from http.server import BaseHTTPRequestHandler

from . import status as st
from .api import MAX_BODY, Request, encode


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, sock, addr, front):
        self.front = front
        super().__init__(sock, addr, front)

    def log_message(self, fmt, *args):  # keep pytest output clean
        pass

    def send_response(self, code, message=None):
        self.send_response_only(code, message)  # no Server header, like kube-apiserver
        self.send_header("Date", self.date_time_string())

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (OSError, ValueError, ssl.SSLError):
            self.close_connection = True

    def _read_body(self):
        if (self.headers.get("Transfer-Encoding") or "").lower() == "chunked":
            return self._read_chunked()
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        n = int(length)
        if n > MAX_BODY:
            self._discard(n)
            return None
        return self.rfile.read(n)

    def _discard(self, n):
        """Reads an oversized body away (up to 64 MiB) so that the client sees the 413."""
        n = min(n, 64 * 1024 * 1024)
        while n > 0:
            chunk = self.rfile.read(min(n, 1 << 16))
            if not chunk:
                return
            n -= len(chunk)

    def _read_chunked(self):
        body = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return body
            if len(body) + size > MAX_BODY:
                return None
            body += self.rfile.read(size)
            self.rfile.readline()

    def _dispatch(self):
        generation = self.front.generation
        body = self._read_body()
        if body is None:
            self._reply_error(st.too_large(MAX_BODY))
            self.close_connection = True
            return
        req = Request(self.command, self.path, self.headers, body,
                      self.connection.getpeercert(binary_form=True))
        resp = self.front.api.handle(req)
        if self.front.generation != generation:
            self.front.record(req, None)
            raise ConnectionResetError("server went down during the request")
        # recorded before the answer goes out: a client that has its answer (and a test that
        # counts right after the client exits) finds the request in the records; a watch counts
        # when it starts, however it ends, as in kube-apiserver's audit log
        self.front.record(req, resp.code)
        if resp.stream is not None:
            self._stream(resp, req)
            return
        self._write(resp)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _dispatch

    def _reply_error(self, err):
        body = encode(err.status)
        self.send_response(err.code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _write(self, resp):
        self.send_response(resp.code)
        for k, v in resp.headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(resp.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(resp.body)

    def _check_client(self):
        """Ends a quiet watch whose client hung up (it sends nothing while it watches)."""
        readable, _, _ = select.select([self.connection], [], [], 0)
        if readable and not self.connection.recv(1):
            raise ConnectionResetError("the client closed the watch")

    def _stream(self, resp, req):
        self.send_response(resp.code)
        for k, v in resp.headers.items():
            self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        generation = self.front.generation
        for chunk in resp.stream:
            if self.front.generation != generation:
                raise ConnectionResetError("server went down during a watch")
            if not chunk:
                self._check_client()
                continue
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Front:
    """The listening side. `api.handle(Request) -> Response`; `record(req, code)` logs."""

    def __init__(self, api, context, record, host="127.0.0.1", port=0):
        self.api, self.context, self.record = api, context, record
        self.host, self.port = host, port
        self.generation = 0
        self._lock = threading.Lock()
        self._listener = None
        self._conns = set()        # dup'ed control sockets of the open connections
        self._stopping = False
        self._thread = None

    def start(self):
        self._listen()
        self._thread = threading.Thread(target=self._accept_loop, name="k8s-fake-accept",
                                        daemon=True)
        self._thread.start()

    def _listen(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        sock.listen(1024)
        self.port = sock.getsockname()[1]
        with self._lock:
            self._listener = sock

    def _accept_loop(self):
        while not self._stopping:
            with self._lock:
                listener = self._listener
            if listener is None:
                threading.Event().wait(0.02)
                continue
            try:
                ready, _, _ = select.select([listener], [], [], 0.1)
                if not ready:
                    continue
                conn, addr = listener.accept()
            except (OSError, ValueError):
                continue
            threading.Thread(target=self._serve, args=(conn, addr), daemon=True).start()

    def _serve(self, conn, addr):
        control = conn.dup()
        with self._lock:
            if self._listener is None:
                _reset(control)
                control.close()
                conn.close()
                return
            self._conns.add(control)
        try:
            conn.settimeout(10)
            tls = self.context.wrap_socket(conn, server_side=True)
            tls.settimeout(None)
            _Handler(tls, addr, self)
        except (OSError, ssl.SSLError, ValueError, ConnectionError):
            pass
        finally:
            with self._lock:
                self._conns.discard(control)
            try:
                conn.close()
            except OSError:
                pass
            control.close()

    def set_down(self, down):
        with self._lock:
            if down and self._listener is not None:
                self.generation += 1
                try:
                    self._listener.shutdown(socket.SHUT_RDWR)  # wakes the select() in accept
                except OSError:
                    pass
                self._listener.close()
                self._listener = None
                conns = list(self._conns)
            elif not down and self._listener is None:
                conns = None
            else:
                return
        if down:
            for control in conns:
                _reset(control)
        else:
            self._listen()

    def stop(self):
        self._stopping = True
        self.set_down(True)
        if self._thread:
            self._thread.join(timeout=5)


def _reset(sock):
    """Abort the TCP connection: the peer sees a reset instead of an orderly close."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
