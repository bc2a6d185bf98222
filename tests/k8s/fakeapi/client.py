# SPDX-License-Identifier: LGPL-2.1-or-later
"""A minimal HTTPS client for tests that talk to the API test server directly."""

import http.client
import json
import ssl


class Client:
    """One HTTPS request per call, verifying the server against `ca` (default: its own CA).
    request() returns (status, response, body): body is parsed JSON for application/json."""

    def __init__(self, srv, token=None, cert=None, ca=None, host="127.0.0.1"):
        self.port, self.token, self.host = srv.front.port, token, host
        self.ctx = ssl.create_default_context(cafile=ca or srv.ca_path)
        if cert:
            self.ctx.load_cert_chain(*cert)

    def connection(self, timeout=10):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx,
                                           timeout=timeout)

    def request(self, method, path, body=None, content_type=None, headers=None):
        conn = self.connection()
        hdrs = dict(headers or {})
        if self.token:
            hdrs["Authorization"] = f"Bearer {self.token}"
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            content_type = content_type or "application/json"
        if content_type:
            hdrs["Content-Type"] = content_type
        try:
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        ctype = resp.getheader("Content-Type") or ""
        return resp.status, resp, (json.loads(data) if ctype == "application/json" else data)

    def get(self, path):
        return self.request("GET", path)

    def patch(self, path, body, content_type="application/merge-patch+json"):
        return self.request("PATCH", path, json.dumps(body), content_type)


def assert_status(body, code, reason, message=None):
    """Assert that body is the API's Status object of a failure with this code and reason."""
    assert body["kind"] == "Status" and body["apiVersion"] == "v1"
    assert body["status"] == "Failure" and body["code"] == code
    assert body.get("reason", "") == reason
    if message is not None:
        assert body["message"] == message
