#!/usr/bin/env python3
"""Open a `wirespeed report` page in headless Chromium and say what a reader saw.

Usage: report_browser.py PAGE.html SCREENSHOT.png [CHROMIUM]

Drives Debian's chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: no
port, standard library only), attached to the page's own target, so the browser's background
traffic is not the page's. Prints one JSON object:
  requests  every URL the page asked for (Network.requestWillBeSent), the page's own file first
  errors    uncaught exceptions, console.error/warn calls, Log errors
  dom       numbers read from the rendered DOM, and what the flow table's filter and sort did
The screenshot is the first 1280x2000 pixels of the page.
"""

import base64
import json
import os
import subprocess
import sys
import tempfile
import time

DEADLINE_S = 60


def main():
    page, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) > 3 else "chromium"
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
            "--window-size=1280,2000",
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
        call("Page.navigate", {"url": "file://" + page}, session=sid)
        wait_event("Page.loadEventFired", sid)
        expr = r"""(function(){
          var q=function(s){return document.querySelector(s);};
          var d={ready:document.body.getAttribute('data-ready'),
            total_flows:q('#total-flows')&&q('#total-flows').getAttribute('data-v'),
            total_bytes:q('#total-bytes')&&q('#total-bytes').getAttribute('data-v'),
            empty:!!q('#empty')};
          var top=q('#apps tbody tr');
          if(top){d.top_app=top.getAttribute('data-name');d.top_app_bytes=top.getAttribute('data-bytes');
            d.top_app_text=top.cells[0].textContent;d.top_app_bytes_text=top.cells[1].textContent;}
          var t=q('#flows');
          if(t){
            var rows=t.tBodies[0].rows, f=q('#filter'), shown=q('#shown');
            d.flow_rows=rows.length; d.shown_before=shown.textContent;
            f.value='no-such-text-anywhere-zz'; f.dispatchEvent(new Event('input'));
            d.shown_nothing=shown.textContent;
            f.value=''; f.dispatchEvent(new Event('input'));
            d.shown_after=shown.textContent;
            var th=t.tHead.rows[0].cells[8]; th.click();
            var v=function(){return Array.prototype.map.call(t.tBodies[0].rows,function(r){return Number(r.cells[8].getAttribute('data-v'));});};
            var a=v(); th.click(); var b=v();
            var sorted=function(x,dir){for(var i=1;i<x.length;i++){if(dir*(x[i]-x[i-1])<0)return false;}return true;};
            d.sorted_one_way=sorted(a,1)||sorted(a,-1); d.sorted_other_way=(sorted(a,1)&&sorted(b,-1))||(sorted(a,-1)&&sorted(b,1));
          }
          return JSON.stringify(d);})()"""
        dom = json.loads(
            call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=sid)[
                "result"
            ]["value"]
        )
        png = call("Page.captureScreenshot", {"format": "png"}, session=sid)["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))
        # Anything still queued (late requests or errors) counts too.
        time.sleep(0.5)
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
        print(json.dumps({"requests": requests, "errors": errors, "dom": dom}))
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
