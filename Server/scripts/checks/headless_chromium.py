"""A headless Chromium for the browser checks: Debian's chromium and chromedriver (installed by
scripts/test.sh), driven through Selenium."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def browser(width=900, height=800, arguments=()):
    """A headless Chromium; `arguments` are added to its command line (such as host rules)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--no-first-run", "--no-proxy-server"):
        options.add_argument(argument)
    for argument in arguments:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
