"""A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: commands on the
browser's fd 3, answers on its fd 4, JSON messages ended by NUL), with the standard library only.

    with Browser.start() as browser:          # raises NoBrowser when no Chromium is installed
        page = browser.open("file:///tmp/report.html")
        page.evaluate("document.title")
        page.screenshot("report.png", width=1280)

`python -m harness.browser FLEET PNG` renders `rmqplan simulate --fleet FLEET --html` and saves a full-page
screenshot (the README's picture is made this way: `make screenshot`).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Optional

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--remote-debugging-pipe")
INSTALL_HINT = ("no Chromium found (looked for RMQPLAN_CHROMIUM, then " + ", ".join(CANDIDATES) + " on PATH); "
                "install one, e.g. `apt-get install chromium` on Debian or Ubuntu")


class NoBrowser(Exception):
    pass


class BrowserError(Exception):
    pass


def find_chromium() -> Optional[str]:
    explicit = os.environ.get("RMQPLAN_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    def __init__(self, proc: subprocess.Popen, to_browser: int, from_browser: int, profile: str):
        self.proc, self.profile = proc, profile
        self._out, self._in = to_browser, from_browser
        self._buffer = b""
        self._next_id = 0

    @classmethod
    def start(cls, timeout: float = 60) -> "Browser":
        binary = find_chromium()
        if binary is None:
            raise NoBrowser(INSTALL_HINT)
        profile = tempfile.mkdtemp(prefix="rmqplan-chromium-")
        commands_r, commands_w = os.pipe()  # we write commands, the browser reads them on its fd 3
        answers_r, answers_w = os.pipe()  # the browser writes answers on its fd 4

        def fds_3_and_4():
            os.dup2(commands_r, 3)
            os.dup2(answers_w, 4)

        proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=fds_3_and_4, pass_fds=(3, 4))
        os.close(commands_r)
        os.close(answers_w)
        browser = cls(proc, commands_w, answers_r, profile)
        browser.timeout = timeout
        try:
            browser.call("Browser.getVersion")
        except Exception:
            browser.close()
            raise
        return browser

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.call("Browser.close", timeout=5)
            except Exception:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline: float) -> dict:
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._in], [], [], left)
            if not ready:
                continue
            data = os.read(self._in, 1 << 20)
            if not data:
                raise BrowserError(f"Chromium closed the pipe (exit {self.proc.poll()})")
            self._buffer += data
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: Optional[dict] = None, session: Optional[str] = None,
             timeout: Optional[float] = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or getattr(self, "timeout", 60))
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error'].get('message')}")
                return answer.get("result", {})

    def open(self, url: str, width: int = 1280, height: int = 900, timeout: float = 30) -> "Page":
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        page.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        page.call("Page.navigate", {"url": url})
        page.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'", timeout)
        return page


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session

    def call(self, method: str, params: Optional[dict] = None) -> dict:
        return self.browser.call(method, params, self.session)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression (JSON-serialisable), evaluated in the page."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(f"{expression[:80]}...: {details.get('exception', {}).get('description', details)}")
        return result["result"].get("value")

    def wait_for(self, condition: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"!!({condition})"):
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {condition}")
            time.sleep(0.05)

    def screenshot(self, path: str, width: int = 1280) -> tuple[int, int]:
        """A PNG of the whole page at `width` CSS pixels; returns (width, height)."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 600, "deviceScaleFactor": 1, "mobile": False})
        height = int(self.evaluate("Math.ceil(document.documentElement.scrollHeight)"))  # at that width
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return width, height


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m harness.browser FLEET PNG", file=sys.stderr)
        return 2
    fleet, png = argv
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.html")
        done = subprocess.run([sys.executable, "-m", "rmqplan.cli", "simulate", "--fleet", fleet, "--html", report],
                              stdout=subprocess.DEVNULL)
        if done.returncode not in (0, 1):
            return done.returncode
        with Browser.start() as browser:
            size = browser.open("file://" + report).screenshot(png, width=1180)
    print(f"{png}: {size[0]}x{size[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
