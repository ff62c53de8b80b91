"""Subscribes to LocalForce's Streaming API with aiosfstream-ng (the maintained fork of
aiosfstream), unchanged: OAuth password login, Change Data Capture and PushTopic channels,
replay after a restart from stored replay markers, and the fallback from a replay id outside
the retention window.

Usage: LOCALFORCE_URL=http://127.0.0.1:PORT CLIENT_ID=... CLIENT_SECRET=... USERNAME=... PASSWORD=...
       python3 aiosfstream_check.py

aiosfstream-ng logs in at login.salesforce.com; its authenticators take the token URL from
their `_token_url` property, which a two-line subclass points at LocalForce. Everything else,
the CometD client included, is the library's own code.
"""
import asyncio
import contextlib
import json
import os
import sys
import urllib.request

from aiosfstream_ng import Client, PasswordAuthenticator, ReplayOption


class LocalForceAuthenticator(PasswordAuthenticator):
    @property
    def _token_url(self):
        return os.environ["LOCALFORCE_URL"] + "/services/oauth2/token"


def check(condition, message):
    if not condition:
        print("FAILED: " + message)
        sys.exit(1)
    print("ok: " + message)


def authenticator():
    return LocalForceAuthenticator(
        consumer_key=os.environ["CLIENT_ID"], consumer_secret=os.environ["CLIENT_SECRET"],
        username=os.environ["USERNAME"], password=os.environ["PASSWORD"])


async def rest(auth, method, path, body=None):
    """A REST call with the token aiosfstream obtained (urllib, in a thread)."""
    def send():
        request = urllib.request.Request(
            auth.instance_url + "/services/data/v59.0/" + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + auth.access_token, "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return json.loads(text) if text else None
    return await asyncio.to_thread(send)


async def receive(client, count, timeout=120):
    messages = []
    async def collect():
        async for message in client:
            messages.append(message)
            if len(messages) == count:
                return
    await asyncio.wait_for(collect(), timeout)
    return messages


@contextlib.asynccontextmanager
async def opened(client, within=10):
    """The client, open: a CometD server answers the first connect after a handshake at once,
    so opening takes seconds at most (a server that held it for its long poll took 110 s)."""
    await asyncio.wait_for(client.open(), within)
    try:
        yield client
    finally:
        await client.close()


async def main():
    markers = {}  # the replay storage a restarted client resumes from
    auth = authenticator()
    async with opened(Client(auth, replay=markers, connection_timeout=120)) as client:
        check(auth.instance_url == os.environ["LOCALFORCE_URL"], "password login through aiosfstream-ng's authenticator")
        topic = await rest(auth, "POST", "sobjects/PushTopic", {
            "Name": "ScriptAccounts", "Query": "SELECT Id, Name FROM Account", "ApiVersion": 45.0})
        check(topic["success"], "a PushTopic is created through REST")
        await client.subscribe("/data/AccountChangeEvent")
        await client.subscribe("/topic/ScriptAccounts")
        created = await rest(auth, "POST", "sobjects/Account", {"Name": "Streamed"})
        messages = await receive(client, 2)
        by_channel = {message["channel"]: message for message in messages}
        change = by_channel["/data/AccountChangeEvent"]["data"]
        header = change["payload"]["ChangeEventHeader"]
        check(header["changeType"] == "CREATE" and header["recordIds"] == [created["id"]], "a CREATE change event arrives")
        check(change["payload"]["Name"] == "Streamed", "the change event carries the fields")
        pushed = by_channel["/topic/ScriptAccounts"]["data"]
        check(pushed["event"]["type"] == "created" and pushed["sobject"]["Name"] == "Streamed", "the PushTopic event arrives")
        check("/data/AccountChangeEvent" in markers, "aiosfstream-ng stored a replay marker")

    # Changes made while no client listens reach a restarted client from its stored marker.
    for name in ("While away 1", "While away 2"):
        await rest(auth, "POST", "sobjects/Account", {"Name": name})
    async with opened(Client(authenticator(), replay=markers, connection_timeout=120)) as client:
        await client.subscribe("/data/AccountChangeEvent")
        missed = await receive(client, 2)
        check([m["data"]["payload"]["Name"] for m in missed] == ["While away 1", "While away 2"],
              "a restarted client replays exactly what it missed")

    # A marker outside the retention window: the server refuses it, the client falls back to all events.
    stale = {"/data/AccountChangeEvent": markers["/data/AccountChangeEvent"]._replace(replay_id=10**9)}
    async with opened(Client(authenticator(), replay=stale, replay_fallback=ReplayOption.ALL_EVENTS, connection_timeout=120)) as client:
        await client.subscribe("/data/AccountChangeEvent")
        everything = await receive(client, 3)
        check([m["data"]["payload"]["Name"] for m in everything] == ["Streamed", "While away 1", "While away 2"],
              "an invalid replay id falls back to all retained events")

    print("aiosfstream-ng: all checks passed")


asyncio.run(main())
