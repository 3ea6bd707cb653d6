#!/usr/bin/env python3
"""Open a `wirespeed live --http` page in headless Chromium and watch it redraw.

Usage: live_browser.py URL SCREENSHOT.png APP [CHROMIUM]

Drives Debian's chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: no
port, standard library only), attached to the page's own target, as scripts/report_browser.py
does. Once the page has drawn from its first /live.json it prints READY on a line of its own,
then reads one line "GO BYTES" on standard input (the caller sends its traffic first) and
waits until the page's row of application APP shows at least BYTES bytes (its flows' ended
and open, `data-bytes` and `data-open-bytes`), looking every 50 ms. Then it prints one JSON object:
  seen      whether the row showed the bytes within the deadline
  ms        milliseconds from GO to the page showing them
  requests  every URL the page asked for (Network.requestWillBeSent)
  errors    uncaught exceptions, console.error/warn calls, Log errors
  dom       what the page showed: the row's cells, the tiles
The screenshot is the first 1280x1100 pixels of the page once it shows them.
"""

import base64
import json
import os
import subprocess
import sys
import tempfile
import time

DEADLINE_S = 120


def main():
    url, shot, app = sys.argv[1], sys.argv[2], sys.argv[3]
    chromium = sys.argv[4] if len(sys.argv) > 4 else "chromium"
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()

    def fds():
        # The browser reads commands on fd 3 and writes answers on fd 4.
        os.dup2(to_chrome_r, 3)
        os.dup2(from_chrome_w, 4)

    profile = tempfile.mkdtemp(prefix="wirespeed-chromium-")
    proc = subprocess.Popen(
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
            "--window-size=1280,1100",
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
    wr = os.fdopen(to_chrome_w, "wb")
    rd = os.fdopen(from_chrome_r, "rb")
    start = time.monotonic()
    buf = b""
    events = []
    next_id = [0]

    def read_msg():
        nonlocal buf
        while b"\0" not in buf:
            if time.monotonic() - start > DEADLINE_S:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(rd.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            buf += chunk
        msg, buf = buf.split(b"\0", 1)
        return json.loads(msg)

    def call(method, params=None, session=None):
        next_id[0] += 1
        mid = next_id[0]
        m = {"id": mid, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        wr.write(json.dumps(m).encode() + b"\0")
        wr.flush()
        while True:
            r = read_msg()
            if r.get("id") == mid:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result", {})
            events.append(r)

    def wait_event(name, session):
        seen = 0
        while True:
            for e in events[seen:]:
                if e.get("method") == name and e.get("sessionId") == session:
                    return
            seen = len(events)
            events.append(read_msg())

    try:
        targets = call("Target.getTargets")["targetInfos"]
        page_target = next(t for t in targets if t["type"] == "page")
        sid = call(
            "Target.attachToTarget", {"targetId": page_target["targetId"], "flatten": True}
        )["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            call(domain + ".enable", session=sid)
        call("Page.navigate", {"url": url}, session=sid)
        wait_event("Page.loadEventFired", sid)

        def evaluate(expr):
            return call("Runtime.evaluate", {"expression": expr, "returnByValue": True},
                        session=sid)["result"].get("value")

        def until(expr, what):
            while not evaluate(expr):
                if time.monotonic() - start > DEADLINE_S:
                    raise TimeoutError(what)
                time.sleep(0.05)

        until("Number(document.body.getAttribute('data-ticks')||0)>=1", "the page never drew")
        print("READY", flush=True)
        go = sys.stdin.readline().split()
        if len(go) != 2 or go[0] != "GO":
            # The caller gave up (its standard input closed): close the browser at once.
            call("Browser.close")
            return
        want = int(go[1])
        t0 = time.monotonic()
        row = ("(function(){var rows=document.querySelectorAll('#apps tbody tr');"
               "for(var i=0;i<rows.length;i++){if(rows[i].getAttribute('data-app')===%s)"
               "return rows[i];}return null;})()") % json.dumps(app)
        seen = True
        try:
            until("(function(){var r=%s;return !!r&&Number(r.getAttribute('data-bytes'))"
                  "+Number(r.getAttribute('data-open-bytes'))>=%d;})()"
                  % (row, want), "the application's bytes never showed")
        except TimeoutError:
            seen = False
        ms = round((time.monotonic() - t0) * 1000)
        dom = json.loads(evaluate(
            "(function(){var r=%s;var t=function(i){return document.getElementById(i).textContent;};"
            "return JSON.stringify({row:r?Array.prototype.map.call(r.cells,function(c){return c.textContent;}):null,"
            "bytes:r&&r.getAttribute('data-bytes'),open_bytes:r&&r.getAttribute('data-open-bytes'),packets:t('packets'),active:t('active'),"
            "ended:t('ended'),kdrops:t('kdrops'),state:t('state')});})()" % row))
        png = call("Page.captureScreenshot", {"format": "png"}, session=sid)["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))
        # Anything still queued (late requests or errors) counts too.
        call("Runtime.evaluate", {"expression": "1"}, session=sid)
        requests, errors = [], []
        for e in events:
            if e.get("sessionId") != sid:
                continue
            m, p = e.get("method"), e.get("params", {})
            if m == "Network.requestWillBeSent":
                requests.append(p["request"]["url"])
            elif m in ("Network.webSocketCreated",):
                requests.append(p.get("url", "?"))
            elif m == "Runtime.exceptionThrown":
                errors.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:500])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                errors.append("console." + p["type"] + ": " + json.dumps(p.get("args"))[:500])
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                errors.append("log: " + p["entry"].get("text", "")[:500])
        print(json.dumps({"seen": seen, "ms": ms, "requests": requests, "errors": errors,
                          "dom": dom}))
        try:
            call("Browser.close")
        except (EOFError, RuntimeError):
            pass
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
