"""Logs in to LocalForce with simple-salesforce's own OAuth flows, unchanged: JWT bearer
(consumer key + private key) and client credentials (consumer key + secret).

Usage: LOCALFORCE_URL=http://127.0.0.1:PORT JWT_CLIENT_ID=... JWT_USERNAME=... JWT_KEY_FILE=...
       CC_CLIENT_ID=... CC_CLIENT_SECRET=... CC_USERNAME=... python3 simple_salesforce_oauth_check.py

simple-salesforce sends its logins to https://{domain}.salesforce.com and its API calls to
https://{instance}. A transport adapter on the requests session (the client's documented
`session=` hook) sends those to LocalForce's plain HTTP on loopback: the client's code, the
requests and the answers are the client's own.
"""
import os
import sys
from urllib.parse import urlparse

import requests
from requests.adapters import HTTPAdapter
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceAuthenticationFailed


class Loopback(HTTPAdapter):
    """Sends https://<login or instance host>/… to http://127.0.0.1:PORT/…."""

    def __init__(self, target):
        super().__init__()
        self.target = target

    def send(self, request, **kwargs):
        parsed = urlparse(request.url)
        request.url = self.target + parsed.path + ("?" + parsed.query if parsed.query else "")
        return super().send(request, **kwargs)


def session_for(url):
    session = requests.Session()
    session.trust_env = False
    adapter = Loopback(url)
    for prefix in ("https://login.salesforce.com", "https://localforce.salesforce.com", "https://127.0.0.1:"):
        session.mount(prefix, adapter)
    return session


def check(condition, message):
    if not condition:
        print("FAILED: " + message)
        sys.exit(1)
    print("ok: " + message)


def main():
    url = os.environ["LOCALFORCE_URL"]
    port = urlparse(url).port

    with open(os.environ["JWT_KEY_FILE"]) as key_file:
        private_key = key_file.read()
    sf = Salesforce(username=os.environ["JWT_USERNAME"], consumer_key=os.environ["JWT_CLIENT_ID"],
                    privatekey=private_key, domain="login", session=session_for(url), version="59.0")
    check(sf.sf_instance == f"127.0.0.1:{port}", "JWT bearer: the token answer's instance_url is LocalForce's")
    who = sf.query(f"SELECT Username FROM User WHERE Username = '{os.environ['JWT_USERNAME']}'")
    check(who["totalSize"] == 1, "JWT bearer: the session queries the org")
    created = sf.Account.create({"Name": "Made over JWT"})
    owner = sf.Account.get(created["id"])["OwnerId"]
    check(sf.User.get(owner)["Username"] == os.environ["JWT_USERNAME"], "JWT bearer: records are owned by the assertion's user")

    sf = Salesforce(consumer_key=os.environ["CC_CLIENT_ID"], consumer_secret=os.environ["CC_CLIENT_SECRET"],
                    domain="localforce", session=session_for(url), version="59.0")
    result = sf.query("SELECT COUNT() FROM Account")
    check(result["totalSize"] >= 1, "client credentials: the session queries the org")
    created = sf.Account.create({"Name": "Made over client credentials"})
    owner = sf.Account.get(created["id"])["OwnerId"]
    check(sf.User.get(owner)["Username"] == os.environ["CC_USERNAME"], "client credentials: records are owned by the run-as user")

    try:
        Salesforce(consumer_key=os.environ["CC_CLIENT_ID"], consumer_secret="wrong", domain="localforce",
                   session=session_for(url), version="59.0")
        check(False, "a wrong consumer secret is refused")
    except SalesforceAuthenticationFailed as failure:
        check("invalid_client" in str(failure), "a wrong consumer secret is refused with invalid_client")

    print("simple-salesforce oauth: all checks passed")


if __name__ == "__main__":
    main()
