#!/usr/bin/env python3
"""The inspector's views in headless Chromium, driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: no port, no WebSocket library, only Python's standard library).

    check.py BROWSER INSPECTOR_URL DOCUMENT STRATA_BINARY SCREENSHOT_DIR

Loads each view, waits until the app has drawn it (main#view's data-view), checks the
DOM for what the document holds, fails on any JavaScript dialog (a value that ran as
script), saves from another process (`strata insert`) while a view is open and checks the
view follows within a few seconds, and writes the README's screenshots. Prints one line per
check and 'N passed, N failed'; exits non-zero on a failure. Tools/inspector-browser-test
makes the document and starts the inspector first.
"""
import base64
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    """Headless Chromium with one page, spoken to over the DevTools protocol's pipe."""

    def __init__(self, executable, profile):
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        high_read = fcntl.fcntl(commands_read, fcntl.F_DUPFD, 10)
        high_write = fcntl.fcntl(replies_write, fcntl.F_DUPFD, 10)

        def wire():
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--hide-scrollbars", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, pass_fds=(3, 4))
        for descriptor in (commands_read, replies_write, high_read, high_write):
            os.close(descriptor)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 860, "deviceScaleFactor": 1, "mobile": False}, session=True)

    def call(self, method, params=None, session=False, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
        raise TimeoutError(method)

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.replies, 65536)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        return result.get("result", {}).get("value")

    def open(self, url, view, timeout=20):
        """Loads url afresh and waits until the app has drawn `view`."""
        self.call("Page.navigate", {"url": "about:blank"}, session=True)
        self.call("Page.navigate", {"url": url}, session=True)
        return self.wait(f"document.getElementById('view')?.getAttribute('data-view') === {json.dumps(view)}", timeout)

    def wait(self, condition, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.evaluate(f"Boolean({condition})"):
                return True
            time.sleep(0.05)
        return False

    def html(self):
        return self.evaluate("document.documentElement.outerHTML") or ""

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def dialogs(self):
        return [event for event in self.events if event.get("method") == "Page.javascriptDialogOpening"]

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    executable, url, document, strata, shots = sys.argv[1:6]
    results = {"passed": 0, "failed": 0}

    def report(ok, name, why=""):
        results["passed" if ok else "failed"] += 1
        print(("ok: " if ok else "FAIL: ") + name + ("" if ok else f": {why}"), flush=True)

    profile = tempfile.mkdtemp(prefix="strata-inspector-browser-")
    browser = Browser(executable, profile)
    try:
        def check(name, route, view, *texts):
            if not browser.open(url + route, view):
                report(False, name, f"the {view} view of {route} was not drawn within 20 s")
                return ""
            page = browser.html()
            missing = [text for text in texts if text not in page]
            report(not missing, name, f"not in the DOM of {route}: {missing}")
            return page

        check("entities", "#/", "entities", 'id="entities"', ">Employee<", ">Department<")
        check("objects sorted by salary", "#/objects?entity=Employee&sort=salary:desc", "objects",
              'id="objects"', "Lovelace", "Employee/p1", "1–4 of 4", "salary ▼")
        # The next page is sought after the last row shown (docs/INSPECTOR.md): its link carries it.
        check("paging by key", "#/objects?entity=Employee&sort=salary:desc&limit=2", "objects",
              "1–2 of 4", 'id="next-page"', "after=Employee%2Fp")
        # Back by key: "← previous" carries the cursor the earlier page was read with.
        if browser.open(url + "#/objects?entity=Employee&sort=salary:desc&limit=1", "objects"):
            browser.evaluate("document.getElementById('next-page').click()")
            browser.wait("document.getElementById('page-range')?.textContent.startsWith('2–2')", 10)
            browser.evaluate("document.getElementById('next-page').click()")
            moved = browser.wait("document.getElementById('page-range')?.textContent.startsWith('3–3')", 10)
            link = browser.evaluate("document.getElementById('previous-page')?.getAttribute('href') || ''") or ""
            report(moved and "after=Employee%2Fp" in link and "offset=1" in link, "paging back by key",
                   f"moved: {moved}, previous: {link}")
        else:
            report(False, "paging back by key", "the objects view was not drawn within 20 s")
        check("predicate box", "#/objects?entity=Employee&where=salary%20%3E%20130000", "objects",
              "Lovelace", "Hopper", "1–2 of 2")
        check("predicate error shown inline", "#/objects?entity=Employee&where=salary%20%3E%3E", "objects",
              'class="error"', "Malformed predicate", "column")
        check("object page", "#/object?id=Employee/p1", "object",
              'id="attributes"', "175000", 'href="#/object?id=Department%2Fp1"', 'id="object-history"', "150000")
        check("timeline", "#/timeline", "timeline", 'id="timeline"', 'id="timeline-chart"', "<rect", ">ada<", ">bob<",
              "Insert Employee", 'class="kind undo"')
        check("timeline filtered by author", "#/timeline?author=bob", "timeline", "Update Employee")
        check("a save's old and new values", "#/save?sequence=6", "save", 'id="changes"', "150000", "175000",
              'class="old"', 'class="new"')
        hostile = check("time travel", "#/objects?entity=Employee&at=7", "objects",
                        "Viewing the document as of save 7", "Mallory", "&lt;img src=x onerror=alert(1)&gt;")
        report("<img src=" not in hostile.replace("&lt;img src=", ""), "a value holding markup stays text")
        check("compare two saves", "#/compare?from=1&to=6", "compare", 'id="compare-summary"', "4 inserted")
        check("undo", "#/undo", "undo", 'id="next-undo"', "Undo would revert", "Redo would repeat", 'id="undo-context"')
        check("file", "#/file", "file", 'id="segments"', 'id="file-chart"', "employees-1")

        # Live: the open objects view follows another process's save without a reload.
        if browser.open(url + "#/objects?entity=Department", "objects") and browser.wait(
                "document.body.getAttribute('data-last-sequence') === '8'", 10):
            browser.evaluate("window.__notReloaded = true")
            subprocess.run([strata, "insert", document, "Department", "name=Sales"], check=True,
                           stdout=subprocess.DEVNULL, env={**os.environ, "STRATA_AUTHOR": "carol"})
            saved = time.time()
            followed = browser.wait("document.getElementById('objects')?.textContent.includes('Sales')", 10)
            took = time.time() - saved
            same_page = browser.evaluate("window.__notReloaded === true")
            report(followed and same_page and took < 2.5, "live update",
                   f"shown: {followed}, same page: {same_page}, after {took:.2f} s")
            print(f"  the view followed the save in {took:.2f} s")
        else:
            report(False, "live update", "the objects view or its event stream did not start")

        report(not browser.dialogs(), "no script ran from a value", str(browser.dialogs()))

        os.makedirs(shots, exist_ok=True)
        for name, route, view in [("inspector-objects", "#/objects?entity=Employee&sort=salary:desc", "objects"),
                                  ("inspector-timeline", "#/timeline", "timeline"),
                                  ("inspector-save", "#/save?sequence=6", "save")]:
            path = os.path.join(shots, name + ".png")
            drawn = browser.open(url + route, view)
            if drawn:
                browser.screenshot(path)
            report(drawn and os.path.getsize(path) > 10_000, "screenshot " + name + ".png", "not written")
    finally:
        browser.close()
        subprocess.run(["rm", "-rf", profile])
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
