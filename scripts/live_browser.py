#!/usr/bin/env python3
"""Open a `wirespeed live --http` page in headless Chromium and watch it redraw.

Usage: live_browser.py URL SCREENSHOT.png APP [CHROMIUM]

Drives Debian's chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: no
port, standard library only; the client is scripts/cdp.py), attached to the page's own
target. Once the page has drawn from its first /live.json it prints READY on a line of its own,
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

import json
import sys
import time

from cdp import Browser

DEADLINE_S = 120


def main():
    url, shot, app = sys.argv[1], sys.argv[2], sys.argv[3]
    chromium = sys.argv[4] if len(sys.argv) > 4 else "chromium"
    with Browser(chromium, (1280, 1100), DEADLINE_S) as b:
        b.navigate(url)
        evaluate = b.evaluate

        def until(expr, what):
            while not evaluate(expr):
                if b.expired():
                    raise TimeoutError(what)
                time.sleep(0.05)

        until("Number(document.body.getAttribute('data-ticks')||0)>=1", "the page never drew")
        print("READY", flush=True)
        go = sys.stdin.readline().split()
        if len(go) != 2 or go[0] != "GO":
            # The caller gave up (its standard input closed): close the browser at once.
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
        b.screenshot(shot)
        requests, errors = b.seen()
        print(json.dumps({"seen": seen, "ms": ms, "requests": requests, "errors": errors,
                          "dom": dom}))


if __name__ == "__main__":
    main()
