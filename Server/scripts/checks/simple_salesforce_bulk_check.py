"""Runs simple-salesforce's Bulk API clients (bulk2 and bulk), unchanged, against LocalForce over HTTPS.

Usage: LOCALFORCE_URL=https://localhost:PORT LOCALFORCE_TOKEN=... REQUESTS_CA_BUNDLE=ca.pem \
       python3 simple_salesforce_bulk_check.py
simple-salesforce always builds https:// URLs: the server's self-signed authority is trusted through
REQUESTS_CA_BUNDLE, with no transport adapter. Exits non-zero (with the failing check) on a mismatch.
"""
import csv
import io
import os
import sys
import tempfile

from simple_salesforce import Salesforce


def check(condition, message):
    if not condition:
        print("FAILED: " + message)
        sys.exit(1)
    print("ok: " + message)


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def main():
    sf = Salesforce(instance_url=os.environ["LOCALFORCE_URL"], session_id=os.environ["LOCALFORCE_TOKEN"])
    folder = tempfile.mkdtemp()

    # Bulk API 2.0: insert from a CSV file (one record fails), then its results.
    path = os.path.join(folder, "invoices.csv")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["Name", "Invoice_Number__c", "Total__c"])
        for index in range(1, 251):
            writer.writerow(["Invoice %d" % index, "INV-%03d" % index, "%d.5" % index])
        writer.writerow(["", "INV-BAD", "1"])
    inserted = sf.bulk2.Invoice__c.insert(csv_file=path, wait=0.2)
    check(len(inserted) == 1 and inserted[0]["numberRecordsProcessed"] == 251, "bulk2 insert processes every record")
    check(inserted[0]["numberRecordsFailed"] == 1, "bulk2 insert counts the failed record")
    job = inserted[0]["job_id"]
    successful = rows(sf.bulk2.Invoice__c.get_successful_records(job))
    check(len(successful) == 250 and successful[0]["sf__Created"] == "true", "successfulResults lists the created records")
    failed = rows(sf.bulk2.Invoice__c.get_failed_records(job))
    check(len(failed) == 1 and failed[0]["sf__Error"].startswith("REQUIRED_FIELD_MISSING:"), "failedResults gives sf__Error")
    unprocessed = sf.bulk2.Invoice__c.get_unprocessed_records(job)
    check(unprocessed.strip() == '"Name","Invoice_Number__c","Total__c"', "nothing is left unprocessed")

    # Upsert by an external id: two updated, one created.
    path = os.path.join(folder, "upsert.csv")
    with open(path, "w", newline="") as handle:
        handle.write("Invoice_Number__c,Name,Status__c\nINV-001,Invoice 1,Sent\nINV-002,Invoice 2,Paid\nINV-900,New,Draft\n")
    upserted = sf.bulk2.Invoice__c.upsert(csv_file=path, external_id_field="Invoice_Number__c", wait=0.2)
    check(upserted[0]["numberRecordsProcessed"] == 3 and upserted[0]["numberRecordsFailed"] == 0, "bulk2 upsert")
    created = [row for row in rows(sf.bulk2.Invoice__c.get_successful_records(upserted[0]["job_id"])) if row["sf__Created"] == "true"]
    check([row["Invoice_Number__c"] for row in created] == ["INV-900"], "upsert creates only the new external id")
    ids = {row["Invoice_Number__c"]: row["sf__Id"] for row in successful}

    # Update by Id, delete and hard delete.
    path = os.path.join(folder, "update.csv")
    with open(path, "w", newline="") as handle:
        handle.write("Id,Total__c\n%s,99\n%s,#N/A\n" % (ids["INV-003"], ids["INV-004"]))
    updated = sf.bulk2.Invoice__c.update(csv_file=path, wait=0.2)
    check(updated[0]["numberRecordsFailed"] == 0, "bulk2 update")
    totals = {r["Invoice_Number__c"]: r["Total__c"] for r in sf.query("SELECT Invoice_Number__c, Total__c FROM Invoice__c WHERE Invoice_Number__c IN ('INV-003', 'INV-004')")["records"]}
    check(totals == {"INV-003": 99.0, "INV-004": None}, "update sets a value and #N/A clears one")
    path = os.path.join(folder, "delete.csv")
    with open(path, "w", newline="") as handle:
        handle.write("Id\n%s\n%s\n" % (ids["INV-005"], ids["INV-006"]))
    deleted = sf.bulk2.Invoice__c.delete(csv_file=path, wait=0.2)
    check(deleted[0]["numberRecordsProcessed"] == 2 and deleted[0]["numberRecordsFailed"] == 0, "bulk2 delete")
    with open(path, "w", newline="") as handle:
        handle.write("Id\n%s\n" % ids["INV-007"])
    hard = sf.bulk2.Invoice__c.hard_delete(csv_file=path, wait=0.2)
    check(hard[0]["numberRecordsFailed"] == 0, "bulk2 hard delete")
    remaining = sf.query("SELECT COUNT() FROM Invoice__c")["totalSize"]
    check(remaining == 248, "three invoices deleted, 248 left (got %d)" % remaining)

    # Query, paged into files and as pages of CSV.
    soql = "SELECT Id, Invoice_Number__c, Total__c FROM Invoice__c ORDER BY Invoice_Number__c"
    pages = sf.bulk2.Invoice__c.download(soql, path=folder, max_records=100, wait=0.2)
    check([page["number_of_records"] for page in pages] == [100, 100, 48], "download pages by maxRecords")
    numbers = []
    for page in pages:
        with open(page["file"]) as handle:
            numbers += [row["Invoice_Number__c"] for row in csv.DictReader(handle)]
    check(numbers == sorted(numbers) and len(set(numbers)) == 248, "the downloaded pages hold every record once, in order")
    texts = list(sf.bulk2.Invoice__c.query(soql, max_records=200, wait=0.2))
    check(len(texts) == 2 and sum(len(rows(text)) for text in texts) == 248, "query yields a CSV page per locator")
    everything = list(sf.bulk2.Invoice__c.query_all("SELECT Id FROM Invoice__c", wait=0.2))
    check(sum(len(rows(text)) for text in everything) == 251, "queryAll sees the deleted records too")

    # Bulk API 1.0 with JSON: insert in batches, then query.
    results = sf.bulk.Account.insert([{"Name": "Bulk %d" % index, "NumberOfEmployees": index} for index in range(25)] + [{"Industry": "Energy"}], batch_size=10)
    check(len(results) == 26 and sum(1 for result in results if result["success"]) == 25, "bulk insert: a result per record")
    check(results[-1]["errors"][0]["statusCode"] == "REQUIRED_FIELD_MISSING", "bulk insert reports the failed record's error")
    accounts = sf.bulk.Account.query("SELECT Id, Name, NumberOfEmployees FROM Account WHERE Name LIKE 'Bulk %' ORDER BY NumberOfEmployees")
    check([record["NumberOfEmployees"] for record in accounts] == list(range(25)), "bulk query returns the records")
    check(accounts[0]["attributes"]["type"] == "Account", "bulk query records carry attributes")
    updates = sf.bulk.Account.update([{"Id": accounts[0]["Id"], "Industry": "Media"}])
    check(updates[0]["success"] and not updates[0]["created"], "bulk update")

    print("simple-salesforce bulk: all checks passed")


if __name__ == "__main__":
    main()
