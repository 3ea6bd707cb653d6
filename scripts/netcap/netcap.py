#!/usr/bin/env python3
"""Capture real traffic between a client and a server in two network namespaces.

The test vectors of the "after the first packets" features (STARTTLS, FTP data connections,
TCP Fast Open, several DNS transactions on one 5-tuple) come from real implementations, not
from wirespeed: this script makes two namespaces joined by a veth pair (client 192.0.2.1,
server 192.0.2.2; IPv6 2001:db8::1 and ::2), captures on the server's end with tcpdump, starts
the scenario's server in one namespace and its client in the other, then removes everything.
Nothing leaves the namespaces. Needs root, iproute2, tcpdump and the scenario's packages
(scenarios.py names them).

    sudo python3 scripts/netcap/netcap.py SCENARIO OUT.pcap
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios  # noqa: E402

CLIENT, SERVER = "192.0.2.1", "192.0.2.2"
CLIENT6, SERVER6 = "2001:db8::1", "2001:db8::2"


def sh(*args, check=True, **kw):
    return subprocess.run(list(args), check=check, **kw)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in scenarios.ALL:
        sys.exit(f"usage: netcap.py {{{','.join(sorted(scenarios.ALL))}}} OUT.pcap")
    name, out = sys.argv[1], os.path.abspath(sys.argv[2])
    sc = scenarios.ALL[name]
    tag = f"{os.getpid() % 100000}"
    nsc, nss = f"wscC{tag}", f"wscS{tag}"
    vc, vs = f"wscc{tag}", f"wscs{tag}"
    work = tempfile.mkdtemp(prefix="netcap-")
    procs = []
    # A SIGTERM (timeout(1), heldout.py giving up) unwinds through the cleanup below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("netcap: terminated"))
    try:
        sh("ip", "netns", "add", nsc)
        sh("ip", "netns", "add", nss)
        sh("ip", "link", "add", vc, "type", "veth", "peer", "name", vs)
        sh("ip", "link", "set", vc, "netns", nsc)
        sh("ip", "link", "set", vs, "netns", nss)
        for ns, dev, a4, a6 in ((nsc, vc, CLIENT, CLIENT6), (nss, vs, SERVER, SERVER6)):
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "addr", "add", f"{a4}/24", "dev", dev)
            sh("ip", "-n", ns, "addr", "add", f"{a6}/64", "dev", dev, "nodad")
            sh("ip", "-n", ns, "link", "set", dev, "up")
            # Segmentation offloads off: the capture shows the segments as sent.
            sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "tso", "off", "gso", "off",
               "gro", "off", check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for k, v in sc.get("sysctl", {}).items():
                sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"{k}={v}")
        dump = subprocess.Popen(
            ["ip", "netns", "exec", nss, "tcpdump", "-i", vs, "-U", "-s", "0", "-w", out,
             "not ip6 or not icmp6"],
            stderr=subprocess.DEVNULL)
        procs.append(dump)
        time.sleep(1.0)
        env = dict(os.environ, CLIENT=CLIENT, SERVER=SERVER, CLIENT6=CLIENT6,
                   SERVER6=SERVER6, WORK=work)
        srv = subprocess.Popen(["ip", "netns", "exec", nss] + sc["server"], env=env,
                               cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(srv)
        time.sleep(sc.get("settle", 1.5))
        cli = subprocess.run(["ip", "netns", "exec", nsc] + sc["client"], env=env, cwd=work,
                             capture_output=True, text=True, timeout=60)
        if cli.returncode != 0:
            sys.stderr.write(cli.stdout + cli.stderr)
            sys.exit(f"netcap: the {name} client failed ({cli.returncode})")
        sys.stderr.write(cli.stdout)
        time.sleep(1.0)
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        # Whatever the server started (dovecot's children) dies with its namespace's
        # processes.
        for ns in (nsc, nss):
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                  text=True).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), 9)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", ns, check=False, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
