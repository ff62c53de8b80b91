"""Runs the real third-party client simple-salesforce against a LocalForce server.

Usage: LOCALFORCE_URL=http://127.0.0.1:PORT LOCALFORCE_TOKEN=... python3 simple_salesforce_check.py
Exits non-zero (with the failing check) if the server does not behave like Salesforce.
"""
import datetime
import os
import sys

import requests
from requests.adapters import HTTPAdapter
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import (SalesforceExpiredSession, SalesforceMalformedRequest,
                                          SalesforceResourceNotFound)


class LoopbackPlainHTTP(HTTPAdapter):
    """simple-salesforce always builds https:// URLs; LocalForce speaks plain HTTP on loopback."""

    def send(self, request, **kwargs):
        if request.url.startswith("https://"):
            request.url = "http://" + request.url[len("https://"):]
        return super().send(request, **kwargs)


def check(condition, message):
    if not condition:
        print("FAILED: " + message)
        sys.exit(1)
    print("ok: " + message)


def main():
    url, token = os.environ["LOCALFORCE_URL"], os.environ["LOCALFORCE_TOKEN"]
    session = requests.Session()
    session.trust_env = False
    session.mount("https://127.0.0.1:", LoopbackPlainHTTP())
    sf = Salesforce(instance_url=url, session_id=token, version="59.0", session=session)

    created = sf.Account.create({"Name": "Simple Co", "Industry": "Energy"})
    check(created["success"] and created["id"].startswith("001") and len(created["id"]) == 18, "create returns an 18-char id")
    account_id = created["id"]
    record = sf.Account.get(account_id)
    check(record["Name"] == "Simple Co" and record["attributes"]["type"] == "Account", "get returns the record")
    check(sf.Account.update(account_id, {"Phone": "555-0100"}) == 204, "update returns 204")
    check(sf.Account.get(account_id)["Phone"] == "555-0100", "update is visible")

    status = sf.Invoice__c.upsert("Invoice_Number__c/INV-9", {"Name": "Upserted"})
    check(status == 201, "upsert creates (201)")
    check(sf.Invoice__c.upsert("Invoice_Number__c/INV-9", {"Name": "Again"}) == 200, "upsert updates (200)")
    check(sf.Invoice__c.get_by_custom_id("Invoice_Number__c", "INV-9")["Name"] == "Again", "get_by_custom_id")

    for index in range(450):
        sf.Contact.create({"LastName": "Contact %03d" % index, "AccountId": account_id})
    result = sf.query("SELECT Id, LastName, Account.Name FROM Contact ORDER BY LastName",
                      headers={"Sforce-Query-Options": "batchSize=200"})
    check(result["totalSize"] == 450 and not result["done"] and len(result["records"]) == 200, "query pages by batchSize")
    check(result["records"][0]["Account"]["Name"] == "Simple Co", "parent relationship fields")
    more = sf.query_more(result["nextRecordsUrl"], True)
    check(len(more["records"]) == 200, "query_more follows nextRecordsUrl")
    everything = sf.query_all("SELECT Id FROM Contact")
    check(everything["totalSize"] == 450 and len(everything["records"]) == 450, "query_all reads every page")
    nested = sf.query("SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName LIMIT 3) FROM Account")
    check(nested["records"][0]["Contacts"]["totalSize"] == 3, "child subquery")

    # Aggregates and GROUP BY, as simple-salesforce users write them.
    sf.Account.create({"Name": "Other Energy", "Industry": "Energy", "AnnualRevenue": 500})
    sf.Account.create({"Name": "Media Co", "Industry": "Media", "AnnualRevenue": 70})
    grouped = sf.query("SELECT Industry, COUNT(Id) cnt, SUM(AnnualRevenue) FROM Account "
                       "GROUP BY Industry HAVING COUNT(Id) > 0 ORDER BY COUNT(Id) DESC")
    rows = grouped["records"]
    check(grouped["done"] and [r["attributes"]["type"] for r in rows] == ["AggregateResult"] * len(rows),
          "GROUP BY returns AggregateResult rows")
    check(rows[0]["Industry"] == "Energy" and rows[0]["cnt"] == 2 and rows[0]["expr0"] == 500,
          "aggregate aliases and expr0 names")
    total = sf.query_all("SELECT COUNT(Id) total, MAX(AnnualRevenue) FROM Account")
    check(total["records"][0]["total"] == 3 and total["records"][0]["expr0"] == 500, "aggregates without GROUP BY")
    check(sf.query("SELECT COUNT() FROM Contact")["totalSize"] == 450, "COUNT() answers totalSize")
    yearly = sf.query("SELECT CALENDAR_YEAR(CreatedDate) year, COUNT(Id) FROM Contact GROUP BY CALENDAR_YEAR(CreatedDate)")
    check(yearly["records"][0]["expr0"] == 450 and yearly["records"][0]["year"] >= 2024, "date functions in GROUP BY")

    found = sf.search("FIND {Simple} IN NAME FIELDS RETURNING Account(Id, Name)")
    check(len(found["searchRecords"]) == 1, "search")
    check(len(sf.quick_search("Simple")["searchRecords"]) >= 1, "quick_search")

    check(any(o["name"] == "Account" for o in sf.describe()["sobjects"]), "describe global")
    check(any(f["name"] == "Name" for f in sf.Account.describe()["fields"]), "describe")
    check("recentItems" in sf.Account.metadata(), "metadata lists recent items")
    check(sf.limits()["DailyApiRequests"]["Max"] > 0, "limits")

    composite = sf.restful("composite", method="POST", json={"allOrNone": True, "compositeRequest": [
        {"method": "POST", "url": "/services/data/v59.0/sobjects/Account", "referenceId": "acc", "body": {"Name": "Composite"}},
        {"method": "POST", "url": "/services/data/v59.0/sobjects/Contact", "referenceId": "con",
         "body": {"LastName": "Ref", "AccountId": "@{acc.id}"}}]})
    check([r["httpStatusCode"] for r in composite["compositeResponse"]] == [201, 201], "composite with references")

    check(sf.Account.delete(account_id) == 204, "delete")
    try:
        sf.Account.get(account_id)
        check(False, "deleted record is gone")
    except SalesforceResourceNotFound:
        check(True, "deleted record is gone (404)")
    deleted = sf.query("SELECT Id FROM Account WHERE Id = '%s'" % account_id, include_deleted=True)
    check(deleted["totalSize"] == 1, "queryAll sees the recycle bin")
    now = datetime.datetime.now(datetime.timezone.utc)
    window = sf.Account.deleted(now - datetime.timedelta(days=1), now + datetime.timedelta(minutes=5))
    check(any(r["id"] == account_id for r in window["deletedRecords"]), "deleted()")

    try:
        sf.query("SELEKT Id FROM Account")
        check(False, "malformed query raises")
    except SalesforceMalformedRequest as error:
        check(error.content[0]["errorCode"] == "MALFORMED_QUERY", "malformed query raises MALFORMED_QUERY")

    bad = Salesforce(instance_url=url, session_id="wrong", version="59.0", session=session)
    try:
        bad.query("SELECT Id FROM Account")
        check(False, "bad token raises")
    except SalesforceExpiredSession:
        check(True, "bad token raises SalesforceExpiredSession")
    print("simple-salesforce: all checks passed")


if __name__ == "__main__":
    main()
