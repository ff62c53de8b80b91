"""Drives LocalForce's OAuth login and consent pages in a real headless Chromium.

Usage: python3 oauth_browser_check.py AUTHORIZE_URL USERNAME PASSWORD [SCREENSHOT_DIR]

Opens the authorize URL (as `msync login` prints it), logs in, allows access, and follows the
redirect to the app's callback (msync's listener on 127.0.0.1), then checks the callback page.
Chromium and chromedriver come from Debian's packages (scripts/test.sh installs them), Selenium
from PyPI. Exits non-zero, with the reason, on any failure.
"""
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from headless_chromium import browser


def main():
    url, username, password = sys.argv[1:4]
    shots = sys.argv[4] if len(sys.argv) > 4 else None
    driver = browser()
    try:
        wait = WebDriverWait(driver, 20)
        driver.get(url)
        wait.until(expected_conditions.presence_of_element_located((By.ID, "username")))
        assert "Log In" in driver.title, driver.title
        if shots:
            driver.save_screenshot(os.path.join(shots, "oauth-login.png"))

        # A wrong password first: the form comes back with an error, nothing is granted.
        driver.find_element(By.ID, "username").send_keys(username)
        driver.find_element(By.ID, "password").send_keys("not the password")
        driver.find_element(By.ID, "Login").click()
        error = wait.until(expected_conditions.presence_of_element_located((By.ID, "error")))
        assert "check your username and password" in error.text, error.text

        password_field = driver.find_element(By.ID, "password")
        password_field.clear()
        password_field.send_keys(password)
        driver.find_element(By.ID, "Login").click()
        allow = wait.until(expected_conditions.element_to_be_clickable((By.ID, "oaapprove")))
        assert "Allow Access?" in driver.page_source
        if shots:
            driver.save_screenshot(os.path.join(shots, "oauth-consent.png"))
        allow.click()

        # The redirect carries the code to msync's listener, which answers with its own page.
        title = wait.until(expected_conditions.presence_of_element_located((By.ID, "title")))
        assert title.text == "Logged in", title.text
        assert driver.current_url.startswith("http://127.0.0.1:"), driver.current_url
        assert "code=" in driver.current_url, driver.current_url
        print("browser: logged in and consented; redirected to", driver.current_url.split("?")[0])
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
