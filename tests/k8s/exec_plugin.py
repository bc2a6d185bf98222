#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A kubeconfig exec credential plugin for the tests, as aws eks get-token or kubelogin behave.

What it does comes from its environment (the kubeconfig's exec.env):
  PLUGIN_LOG      a file it appends one JSON line to per run: argv, KUBERNETES_EXEC_INFO,
                  whether stdin was at its end, its pid
  PLUGIN_TOKENS   comma-separated tokens: run N prints the Nth (the last one after that)
  PLUGIN_EXPIRES  seconds from now for status.expirationTimestamp (none when unset)
  PLUGIN_MODE     token (default), cert (PLUGIN_CERT, PLUGIN_KEY: PEM files), fail (exit 1),
                  hang (sleeps, with a child that sleeps too), flood (1 MiB of output),
                  noisy (1 MiB on stderr, then a token), garbage, other-version; or
                  comma-separated modes: run N takes the Nth (the last one after that)
"""

import datetime
import json
import os
import select
import sys
import time


def main():
    log = os.environ.get("PLUGIN_LOG")
    runs = 0
    if log and os.path.exists(log):
        with open(log) as f:
            runs = sum(1 for _ in f)
    ready, _, _ = select.select([sys.stdin], [], [], 0)
    stdin_eof = bool(ready) and sys.stdin.read() == ""
    info = json.loads(os.environ.get("KUBERNETES_EXEC_INFO", "null"))
    if log:
        with open(log, "a") as f:
            f.write(json.dumps({"argv": sys.argv[1:], "info": info, "stdin_eof": stdin_eof,
                                "pid": os.getpid(), "pgid": os.getpgid(0)}) + "\n")
    modes = os.environ.get("PLUGIN_MODE", "token").split(",")
    mode = modes[min(runs, len(modes) - 1)]
    api = (info or {}).get("apiVersion", "client.authentication.k8s.io/v1")
    if mode == "fail":
        print("error: could not get a token: the identity service is unreachable",
              file=sys.stderr)
        return 1
    if mode == "hang":
        if os.fork() == 0:
            time.sleep(3600)
            return 0
        time.sleep(3600)
    if mode == "flood":
        sys.stdout.write("x" * (1 << 20))
        return 0
    if mode == "noisy":
        for i in range(1 << 14):
            sys.stderr.write(f"debug: {i:08d} " + "." * 47 + "\n")  # 64 bytes a line
        sys.stderr.write("info: token issued\n")
    if mode == "garbage":
        print("Token: abc")
        return 0
    status = {}
    if mode == "cert":
        with open(os.environ["PLUGIN_CERT"]) as c, open(os.environ["PLUGIN_KEY"]) as k:
            status["clientCertificateData"], status["clientKeyData"] = c.read(), k.read()
    else:
        tokens = os.environ.get("PLUGIN_TOKENS", "exec-token").split(",")
        status["token"] = tokens[min(runs, len(tokens) - 1)]
    if "PLUGIN_EXPIRES" in os.environ:
        at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(
            seconds=float(os.environ["PLUGIN_EXPIRES"]))
        status["expirationTimestamp"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    if mode == "other-version":
        api = "client.authentication.k8s.io/v1alpha1"
    print(json.dumps({"kind": "ExecCredential", "apiVersion": api, "spec": {},
                      "status": status}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
