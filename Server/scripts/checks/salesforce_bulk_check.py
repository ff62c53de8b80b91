"""Runs salesforce-bulk 2.2.0 (PyPI), a Bulk API 1.0 client that speaks XML, unchanged, against LocalForce.

Usage: LOCALFORCE_URL=http://127.0.0.1:PORT LOCALFORCE_TOKEN=... python3 salesforce_bulk_check.py
The client creates, closes and aborts jobs with XML <jobInfo> documents, reads job and batch infos,
result lists and errors as XML, and sends batches in CSV or XML. Exits non-zero (with the failing
check) on a mismatch.
"""
import os
import sys
import xml.etree.ElementTree as ET

import unicodecsv
from salesforce_bulk import BulkApiError, CsvDictsAdapter, SalesforceBulk

NS = "{http://www.force.com/2009/06/asyncapi/dataload}"


def check(condition, message):
    if not condition:
        print("FAILED: " + message)
        sys.exit(1)
    print("ok: " + message)


def finish(bulk, job, batch):
    bulk.close_job(job)
    bulk.wait_for_batch(job, batch, timeout=180, sleep_interval=0.2)
    return bulk.batch_status(batch, job, reload=True)


def main():
    bulk = SalesforceBulk(sessionId=os.environ["LOCALFORCE_TOKEN"], host=os.environ["LOCALFORCE_URL"], API_version="59.0")

    # CSV insert: the job is created in XML, the batch built from dicts, the results read as CSV.
    job = bulk.create_insert_job("Account", contentType="CSV")
    check(bulk.job_state(job) == "Open", "an XML jobInfo creates an open CSV job")
    rows = [{"Name": "Bulk %d" % index, "NumberOfEmployees": str(index)} for index in range(1, 101)]
    rows.append({"Name": "", "NumberOfEmployees": "1"})
    batch = bulk.post_batch(job, CsvDictsAdapter(iter(rows)))
    status = finish(bulk, job, batch)
    check(status["state"] == "Completed" and status["numberRecordsProcessed"] == "101", "the batch completes (XML batchInfo)")
    check(status["numberRecordsFailed"] == "1", "the batchInfo counts the failed record")
    results = bulk.get_batch_results(batch, job)
    check(len(results) == 101 and all(r.success == "true" for r in results[:100]), "CSV results list every created record")
    check(results[100].success == "false" and "REQUIRED_FIELD_MISSING" in results[100].error, "the failed record carries its error")
    check(bulk.job_status(job)["state"] == "Closed", "close_job closes the job (XML)")
    check(len(bulk.get_batch_list(job)) == 1, "get_batch_list reads the XML batchInfoList")

    # CSV query: the result ids in XML, the records in CSV.
    job = bulk.create_query_job("Account", contentType="CSV")
    batch = bulk.query(job, "SELECT Id, Name, NumberOfEmployees FROM Account WHERE NumberOfEmployees > 90 ORDER BY Name")
    finish(bulk, job, batch)
    records = []
    for result in bulk.get_all_results_for_query_batch(batch, job):
        records += list(unicodecsv.DictReader(result, encoding="utf-8"))
    check(len(records) == 10 and records[0]["Name"] == "Bulk 100", "a CSV query's records come back (XML result list)")
    check("SELECT Id" in bulk.get_query_batch_request(batch, job), "the query batch's request is kept")

    # Upsert by an external id in an XML job: <sObjects> in, <results> out.
    job = bulk.create_upsert_job("Invoice__c", external_id_name="Invoice_Number__c", contentType="XML")
    check(bulk.job_status(job)["contentType"] == "XML", "an XML job")
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<sObjects xmlns="http://www.force.com/2009/06/asyncapi/dataload">'
        "<sObject><Invoice_Number__c>INV-1</Invoice_Number__c><Name>First &amp; only</Name></sObject>"
        "<sObject><Invoice_Number__c>INV-2</Invoice_Number__c><Name>Second</Name></sObject>"
        "<sObject><Invoice_Number__c>INV-3</Invoice_Number__c></sObject>"
        "</sObjects>"
    ).encode("utf-8")
    batch = bulk.post_batch(job, body)
    finish(bulk, job, batch)
    results = bulk.get_batch_results(batch, job)
    check([(r.success, r.created) for r in results] == [(True, True), (True, True), (False, False)], "XML results")
    check(results[2].error[0]["statusCode"] == "REQUIRED_FIELD_MISSING", "an XML result's errors")

    # An XML query: result ids, then <queryResult> read as the raw stream.
    job = bulk.create_query_job("Invoice__c", contentType="XML")
    batch = bulk.query(job, "SELECT Invoice_Number__c, Name FROM Invoice__c ORDER BY Invoice_Number__c")
    finish(bulk, job, batch)
    result_ids = bulk.get_query_batch_result_ids(batch, job)
    tree = ET.parse(bulk.get_query_batch_results(batch, result_ids[0], job, raw=True))
    names = [record.findtext(NS + "Name") for record in tree.getroot()]
    check(names == ["First & only", "Second"], "an XML query's records")

    # Abort, and an error in XML.
    job = bulk.create_insert_job("Account", contentType="CSV")
    bulk.abort_job(job)
    check(bulk.job_state(job) == "Aborted", "abort_job aborts the job")
    try:
        bulk.job_status("750000000000999AAA")
        check(False, "an unknown job is refused")
    except BulkApiError as error:
        check(error.status_code == 400 and "InvalidJob" in str(error), "an unknown job is refused with an XML error")
    print("salesforce-bulk: all checks passed")


if __name__ == "__main__":
    main()
