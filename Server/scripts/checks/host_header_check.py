"""Checks that a loopback server of msync answers only to its own name (DNS rebinding).

Usage: python3 host_header_check.py URL ACCEPTED_STATUS

Sends GET URL (an http://127.0.0.1:PORT/... address) with different Host headers:
127.0.0.1:PORT and localhost:PORT must get ACCEPTED_STATUS; another name with the same port,
the right name with another port or none, a trailing dot, IPv6 loopback, user info, and no
Host header at all must get 403. Exits non-zero, with
the reason, on any failure.
"""
import http.client
import sys
import urllib.parse


def status_with_host(url, host):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        target = parts.path + ("?" + parts.query if parts.query else "")
        connection.putrequest("GET", target or "/", skip_host=True)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def main():
    url, accepted = sys.argv[1], int(sys.argv[2])
    port = urllib.parse.urlsplit(url).port
    cases = [
        (f"127.0.0.1:{port}", accepted),
        (f"LocalHost:{port}", accepted),
        (f"rebound.example:{port}", 403),
        (f"127.0.0.1:{port + 1 if port < 65535 else port - 1}", 403),
        (f"localhost.:{port}", 403),
        (f"[::1]:{port}", 403),
        (f"user@127.0.0.1:{port}", 403),
        ("127.0.0.1", 403),
        (None, 403),
    ]
    for host, expected in cases:
        status = status_with_host(url, host)
        assert status == expected, f"Host {host!r}: {status}, expected {expected}"
    print(f"hosts: only 127.0.0.1:{port} and localhost:{port} are answered")


if __name__ == "__main__":
    main()
