"""A minimal Chrome DevTools Protocol client for the browser tests (report_browser.py,
live_browser.py): Debian's chromium, headless, driven over a pipe (--remote-debugging-pipe: no
port, standard library only), attached to the page's own target so the browser's background
traffic is not the page's.

    with Browser("chromium", (1280, 2000), deadline_s=60) as b:
        b.navigate("file:///tmp/page.html")
        value = b.evaluate("document.title")
        b.screenshot("shot.png")
        requests, errors = b.seen()
"""

import base64
import json
import os
import subprocess
import tempfile
import time


class Browser:
    def __init__(self, chromium, window, deadline_s):
        self.deadline_s = deadline_s
        self.start = time.monotonic()
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()

        def fds():
            # The browser reads commands on fd 3 and writes answers on fd 4.
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        profile = tempfile.mkdtemp(prefix="wirespeed-chromium-")
        self.proc = subprocess.Popen(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--remote-debugging-pipe",
                "--user-data-dir=" + profile,
                "--window-size=%d,%d" % window,
                "--hide-scrollbars",
                "about:blank",
            ],
            preexec_fn=fds,
            pass_fds=(3, 4, to_chrome_r, from_chrome_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.wr = os.fdopen(to_chrome_w, "wb")
        self.rd = os.fdopen(from_chrome_r, "rb")
        self.buf = b""
        self.events = []
        self.next_id = 0
        self.sid = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.call("Browser.close")
        except (EOFError, RuntimeError, OSError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return False

    def expired(self):
        return time.monotonic() - self.start > self.deadline_s

    def read_msg(self):
        while b"\0" not in self.buf:
            if self.expired():
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self.rd.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        mid = self.next_id
        m = {"id": mid, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        self.wr.write(json.dumps(m).encode() + b"\0")
        self.wr.flush()
        while True:
            r = self.read_msg()
            if r.get("id") == mid:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result", {})
            self.events.append(r)

    def wait_event(self, name):
        seen = 0
        while True:
            for e in self.events[seen:]:
                if e.get("method") == name and e.get("sessionId") == self.sid:
                    return
            seen = len(self.events)
            self.events.append(self.read_msg())

    def navigate(self, url):
        """Attach to the page target, enable what is watched, load `url`, wait for its load."""
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.sid = self.call(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}
        )["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(domain + ".enable", session=self.sid)
        self.call("Page.navigate", {"url": url}, session=self.sid)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expr):
        return self.call(
            "Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=self.sid
        )["result"].get("value")

    def screenshot(self, path):
        png = self.call("Page.captureScreenshot", {"format": "png"}, session=self.sid)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

    def seen(self):
        """(every URL the page asked for, its errors: uncaught exceptions, console.error/warn
        calls, Log errors), after one more round trip so that anything queued counts."""
        self.call("Runtime.evaluate", {"expression": "1"}, session=self.sid)
        requests, errors = [], []
        for e in self.events:
            if e.get("sessionId") != self.sid:
                continue
            m, p = e.get("method"), e.get("params", {})
            if m == "Network.requestWillBeSent":
                requests.append(p["request"]["url"])
            elif m == "Network.webSocketCreated":
                requests.append(p.get("url", "?"))
            elif m == "Runtime.exceptionThrown":
                errors.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:500])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                errors.append("console." + p["type"] + ": " + json.dumps(p.get("args"))[:500])
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                errors.append("log: " + p["entry"].get("text", "")[:500])
        return requests, errors
