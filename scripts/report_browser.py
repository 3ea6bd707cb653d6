#!/usr/bin/env python3
"""Open a `wirespeed report` page in headless Chromium and say what a reader saw.

Usage: report_browser.py PAGE.html SCREENSHOT.png [CHROMIUM]

Drives Debian's chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: no
port, standard library only; the client is scripts/cdp.py), attached to the page's own
target, so the browser's background traffic is not the page's. Prints one JSON object:
  requests  every URL the page asked for (Network.requestWillBeSent), the page's own file first
  errors    uncaught exceptions, console.error/warn calls, Log errors
  dom       numbers read from the rendered DOM, and what the flow table's filter and sort did
The screenshot is the first 1280x2000 pixels of the page.
"""

import json
import os
import sys
import time

from cdp import Browser

DEADLINE_S = 60


def main():
    page, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) > 3 else "chromium"
    with Browser(chromium, (1280, 2000), DEADLINE_S) as b:
        b.navigate("file://" + page)
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
        dom = json.loads(b.evaluate(expr))
        b.screenshot(shot)
        # Anything still queued (late requests or errors) counts too.
        time.sleep(0.5)
        requests, errors = b.seen()
        print(json.dumps({"requests": requests, "errors": errors, "dom": dom}))


if __name__ == "__main__":
    main()
