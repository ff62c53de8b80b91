"""Drives `msync inspect`'s page in a real headless Chromium.

Usage: python3 inspector_browser_check.py PAGE_URL SCREENSHOT_DIR FAILED_ENTRY_ID SYNC_NAME SYNC_COMMAND_JSON

PAGE_URL is the address `msync inspect` printed (with its token); FAILED_ENTRY_ID an accounts
entry that has a last error. SYNC_COMMAND_JSON is a JSON array: the command line of a sync
(`msync sync` of the same store, running SYNC_NAME) that this script starts once the syncs view
is open, to watch its progress change on the page. Loads the page, runs a
query (and a wrong one), opens a record from the results, watches the sync, compares with the
org, and checks that requests without the token are refused, and that a page whose name is
rebound to 127.0.0.1 (DNS rebinding) gets nothing even with the token. Chromium and chromedriver come
from Debian's packages (scripts/test.sh installs them), Selenium from PyPI. Exits non-zero, with
the reason, on any failure.
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from headless_chromium import browser


def status_of(url):
    try:
        with urllib.request.urlopen(url) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def check_token_refusals(page_url):
    parts = urllib.parse.urlsplit(page_url)
    base = f"{parts.scheme}://{parts.netloc}"
    for path in ("/", "/app.js", "/api/soups", "/api/syncs", "/api/query?sql=select%201"):
        assert status_of(base + path) == 401, f"{path} without the token was not refused"
        assert status_of(base + path + ("&" if "?" in path else "?") + "token=wrong") == 401, f"{path} with a wrong token"
    assert status_of(page_url) == 200, "the page with its token"
    print("refused: requests without the token or with a wrong one (401)")


def check_rebinding(page_url):
    """A site whose name now resolves to 127.0.0.1 (DNS rebinding): even with the token, neither
    the page nor the API answers it, in the browser and from a script on that origin."""
    token = urllib.parse.parse_qs(urllib.parse.urlsplit(page_url).query)["token"][0]
    rebound = page_url.replace("://127.0.0.1:", "://rebound.example:", 1)
    driver = browser(900, 600, ["--host-resolver-rules=MAP rebound.example 127.0.0.1"])
    try:
        driver.get(rebound)
        body = driver.find_element(By.TAG_NAME, "body").text
        assert "answers only at http://127.0.0.1:" in body, body
        assert not driver.find_elements(By.ID, "soups-table"), "the page was served to another name"
        status = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/api/soups', {headers: {'X-Inspector-Token': arguments[0]}}).then(r => done(r.status), e => done(String(e)));",
            token)
        assert status == 403, f"the API from the rebound origin: {status}"
    finally:
        driver.quit()
    print("rebinding: the page and the API refuse a name rebound to 127.0.0.1 (403)")


def main():
    page_url, shots, failed_entry, sync_name = sys.argv[1:5]
    sync_command = json.loads(sys.argv[5])
    check_token_refusals(page_url)
    check_rebinding(page_url)
    driver = browser(1200, 800)
    wait = WebDriverWait(driver, 30)
    try:
        # Load: the soups and their counts.
        driver.get(page_url)
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#soups-table a[data-soup='accounts']")))
        rows = driver.find_elements(By.CSS_SELECTOR, "#soups-table tr")
        assert any("accounts" in row.text and "Id (string)" in row.text for row in rows), [row.text for row in rows]
        driver.save_screenshot(os.path.join(shots, "inspector-soups.png"))

        # A wrong query: the error is shown by the console.
        driver.find_element(By.ID, "tab-query").click()
        sql = driver.find_element(By.ID, "sql")
        sql.clear()
        sql.send_keys("select {nosuchsoup:Name} from {nosuchsoup}")
        driver.find_element(By.ID, "run").click()
        error = wait.until(expected_conditions.visibility_of_element_located((By.ID, "query-error")))
        assert "Unknown soup nosuchsoup" in error.text, error.text

        # A query: results, paged.
        sql.clear()
        sql.send_keys("select {accounts:Name}, {accounts:_soup} from {accounts} order by {accounts:Name}")
        driver.find_element(By.ID, "run").click()
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#results-table a.open-record")))
        assert not driver.find_element(By.ID, "query-error").is_displayed()
        header = driver.find_element(By.CSS_SELECTOR, "#results-table tr").text
        assert header.startswith("Name"), header
        assert "page 1, 50 rows" in driver.find_element(By.ID, "page-label").text
        driver.find_element(By.ID, "next").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "page-label"), "page 2"))
        driver.save_screenshot(os.path.join(shots, "inspector-query.png"))

        # A record, from the results: its flags and JSON.
        driver.find_element(By.CSS_SELECTOR, "#results-table a.open-record").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "record-json"), "_soupEntryId"))
        flags = driver.find_element(By.ID, "record-flags").text
        assert "__local__" in flags and "__locally_created__" in flags, flags
        assert driver.find_element(By.ID, "record-soup").get_attribute("value") == "accounts"
        driver.save_screenshot(os.path.join(shots, "inspector-record.png"))

        # A dirty record with a last error shows it.
        driver.find_element(By.ID, "record-id").clear()
        driver.find_element(By.ID, "record-id").send_keys(failed_entry)
        driver.find_element(By.ID, "record-open").click()
        last_error = wait.until(expected_conditions.visibility_of_element_located((By.ID, "record-last-error")))
        assert "Last error" in last_error.text, last_error.text

        # The conflicts: listed, and a click opens the record with its three versions.
        driver.find_element(By.ID, "tab-conflicts").click()
        # Read in one script: the table can be redrawn between a find and a read of its text.
        conflict_text = wait.until(lambda d: d.execute_script(
            "const row = document.querySelector('#conflicts-table tr.link'); return row ? row.innerText : null;"))
        assert "CHANGED_ON_BOTH_SIDES" in conflict_text and "Name" in conflict_text, conflict_text
        driver.save_screenshot(os.path.join(shots, "inspector-conflicts.png"))
        driver.execute_script("document.querySelector('#conflicts-table tr.link').click()")
        wait.until(expected_conditions.visibility_of_element_located((By.ID, "record-conflict")))
        versions = driver.find_element(By.ID, "record-conflict-table").text
        assert "Changed here" in versions and "Changed on the server" in versions, versions
        driver.save_screenshot(os.path.join(shots, "inspector-conflict-record.png"))

        # The org side by side.
        driver.find_element(By.ID, "tab-org").click()
        driver.find_element(By.ID, "compare-run").click()
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#compare-table tr.state-gone")))
        changed = driver.find_elements(By.CSS_SELECTOR, "#compare-table tr.state-changed")
        dirty = driver.find_elements(By.CSS_SELECTOR, "#compare-table tr.state-dirty")
        assert changed and dirty, "changed on the server and dirty rows are marked"
        assert any("Industry" in row.text for row in changed), [row.text for row in changed]
        driver.save_screenshot(os.path.join(shots, "inspector-org.png"))
        # The syncs, while a sync runs in another process on the same store.
        driver.find_element(By.ID, "tab-syncs").click()
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#syncs-table tr[data-sync='accounts']")))
        process = subprocess.Popen(sync_command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        seen = []
        deadline = time.time() + 90
        selector = f"#syncs-table tr[data-sync='{sync_name}']"
        while time.time() < deadline:
            # Read in one script: the table is redrawn every second, so a found row can go stale.
            row = driver.execute_script("const row = document.querySelector(arguments[0]); return row ? row.innerText : '';", selector)
            if not seen or seen[-1] != row:
                seen.append(row)
                if "RUNNING" in row and not os.path.exists(os.path.join(shots, "inspector-syncs.png")):
                    driver.save_screenshot(os.path.join(shots, "inspector-syncs.png"))
            if process.poll() is not None and "DONE" in row:
                break
            time.sleep(0.2)
        output = process.communicate()[0].decode()
        assert process.returncode == 0, output
        assert any("RUNNING" in row for row in seen), seen
        assert "DONE" in seen[-1], seen
        print("syncs: the page showed", len(seen), "states of the running sync:", " | ".join(seen))

        print("browser: loaded, queried, opened a record, showed a conflict, watched a sync, compared with the org")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
