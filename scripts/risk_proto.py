#!/usr/bin/env python3
"""Prototype of crates/classify/src/risk.rs on the corpus: apply the flow-level risk rules (as
read in nDPI's source, commit 3c626c38: tls.c, http.c, ndpi_main.c, ndpi_utils.c) to the columns
of /work/shared/corpus/flows.csv and print precision/recall against nDPI's own `risks` column.

It checks the *reading* of nDPI's conditions; nothing here is fitted to the corpus. Columns the
corpus lacks are stood in for as follows (and said so in the output):
  * TLS client-hello version and "ALPN offered": from the JA4 string (JA4_a holds the version,
    e.g. "t10" = TLS 1.0, and the first/last ALPN characters, "00" = no ALPN);
  * the protocol's standard ports: inverted from wirespeed's port table
    (crates/classify/src/port.rs, which is nDPI's default-port table, one protocol per port);
  * breeds: nDPI's protocol breed is not in the corpus; UNSAFE_APPS lists protocols nDPI
    declares Unsafe / Potentially dangerous / Dangerous (from memory of ndpi_main.c, not read).
Kinds that need facts the corpus lacks (cipher, certificate, HTTP status, DNS rcode, payload
entropy) are left out of the table.

Usage: scripts/risk_proto.py [flows.csv]
"""
import csv
import ipaddress
import os
import re
import sys
import urllib.parse
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpus/flows.csv"

# ---------------------------------------------------------------- default ports (port.rs)


def load_ports():
    src = open(os.path.join(HERE, "..", "crates", "classify", "src", "port.rs")).read()
    out = {}
    for l4, name in (("TCP", "static TCP"), ("UDP", "static UDP")):
        start = src.index(name)
        end = src.index("];", start)
        for port, proto in re.findall(r'\((\d+),\s*e\("([^"]+)"', src[start:end]):
            out.setdefault((l4, proto), set()).add(int(port))
    return out


PORTS = load_ports()

UNSAFE_APPS = {
    "FTP_CONTROL", "POP3", "IMAP", "SMTP", "Telnet", "SMBv1", "TFTP", "IRC", "Gnutella",
    "eDonkey", "Mining", "Tor", "BitTorrent_unused",
}

HTTP_MASTERS = {"HTTP", "HTTP_Proxy", "HTTP_Connect"}
TLS_LIKE = {"TLS", "DTLS", "QUIC", "IMAPS", "POPS", "SMTPS", "FTPS", "MQTTS"}

# ---------------------------------------------------------------- predicates


def is_multi_or_broadcast(addr):
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    if ip.version == 4:
        v = int(ip)
        # nDPI: (daddr & 0xE0000000) == 0xE0000000, last byte 0xFF or 0x00
        return (v & 0xE0000000) == 0xE0000000 or (v & 0xFF) in (0, 0xFF)
    return ip.packed[0] == 0xFF


def inet_pton_ok(s):
    """glibc inet_pton(AF_INET) / (AF_INET6) acceptance."""
    if re.fullmatch(r"(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}", s):
        return all(int(p) <= 255 for p in s.split("."))
    if ":" in s and "%" not in s:
        try:
            ipaddress.IPv6Address(s)
            return True
        except ValueError:
            return False
    return False


def http_numeric_host(host):
    """http.c ndpi_check_numeric_ip: starts with a digit, < 21 chars, ':port' cut, and
    inet_addr/inet_ntoa gives it back unchanged (canonical dotted quad)."""
    if not host or not host[0].isdigit() or len(host) >= 21:
        return False
    h = host.split(":", 1)[0]
    return bool(re.fullmatch(r"(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}", h)) and all(
        int(p) <= 255 for p in h.split(".")
    )


def valid_hostname(s):
    """ndpi_is_valid_hostname: printable, no space, no punctuation except . - _ :"""
    for c in s:
        if c in ".-_:":
            continue
        o = ord(c)
        if o < 0x20 or o > 0x7E or c == " " or (not c.isalnum()):
            return False
    return True


def susp_ua(ua):
    n = len(ua)
    if n > 12 and ua.isalpha():
        if sum(1 for c in ua if c.isupper()) / n >= 0.2:
            return True
    if ua.startswith("<?") or "$" in ua:
        return True
    i = ua.find("://")
    if i > 0 and ua[i - 1] not in "ps":
        return True
    if ua.startswith("jndi:ldap://"):
        return False  # Possible Exploit instead
    if n < 4 or n > 256 or ua.startswith("test") or "{" in ua or "}" in ua:
        return True
    return False


XSS_TAGS = ("script", "iframe", "frame", "object", "embed", "applet", "svg", "meta", "base",
            "link", "style", "form", "xml", "img", "body", "input", "video", "audio")
SQL_KW = r"(union|select|insert|update|delete|drop|or|and|having|order\s+by|group\s+by|sleep|benchmark|waitfor)"
UNIX_CMDS = ("ls", "cat", "id", "uname", "whoami", "wget", "curl", "nc", "ncat", "netcat", "bash",
             "sh", "zsh", "ping", "echo", "rm", "chmod", "chown", "python", "python3", "perl",
             "php", "ruby", "telnet", "nslookup", "ifconfig", "ps", "kill", "sleep", "passwd",
             "cp", "mv", "touch", "tftp", "ftp", "sudo", "su", "env", "find", "grep", "awk", "sed",
             "head", "tail", "more", "less", "nmap", "socat", "xargs", "base64", "gcc", "crontab",
             "useradd", "netstat", "who", "uptime", "mkdir", "tar", "unzip", "gzip", "ksh", "csh")
SHELL_PATHS = ("bin/sh", "bin/bash", "bin/zsh", "etc/passwd", "etc/shadow", "etc/hosts",
               "proc/self/", "usr/bin/", "usr/local/bin/", "cmd.exe", "/c+dir")
PWSH = ("powershell.exe", "Invoke-Expression", "Invoke-Command", "Invoke-WebRequest",
        "-EncodedCommand", "-ExecutionPolicy", "New-Object", "Start-Process", "Get-Content",
        "Set-Content", "DownloadString")


def is_xss(v):
    lv = v.lower()
    if "javascript:" in lv or "vbscript:" in lv:
        return True
    for m in re.finditer(r"<\s*/?\s*([a-z]+)", lv):
        if m.group(1) in XSS_TAGS:
            return True
    if re.search(r"<[^>]*\son[a-z]+\s*=", lv):
        return True
    return False


def is_sqli(v):
    lv = v.lower()
    if re.search(r"union(\s|/\*.*?\*/)+(all(\s)+)?select", lv):
        return True
    if re.search(r"['\"`]\s*\)?\s*" + SQL_KW + r"\b", lv):
        return True
    if re.search(r"['\"]\s*;?\s*(--|#|/\*)", lv):
        return True
    if re.search(r"\b(or|and)\s+['\"]?\w+['\"]?\s*(=|<|>|like)\s*['\"]?\w+", lv) and re.search(r"['\"]", lv):
        return True
    return False


def is_rce(v):
    if any(p in v for p in SHELL_PATHS) or any(p in v for p in PWSH):
        return True
    lv = v.lower()
    # CRS 932150 ("direct" Unix command): the value itself starts with a command and a
    # separator, e.g. "ls -al".
    head = lv.lstrip(" \t'\"\\")
    w = re.match(r"(?:[\w.-]*/)*([a-z0-9_]+)[\s;|&<>]", head)
    if w and w.group(1) in UNIX_CMDS:
        return True
    for m in re.finditer(r"(;|\|\|?|&&?|`|\$\(|\$\{|<\(|>\(|\n|\r)", lv):
        rest = lv[m.end():].lstrip(" \t'\"{(!$")
        w = re.match(r"(?:[\w./-]*/)?([a-z0-9_]+)", rest)
        if w and w.group(1) in UNIX_CMDS:
            return True
    return False


def url_risk(url):
    """ndpi_validate_url: per query value (after '?', split on '&', value after '='),
    URL-decoded once ('+' = space): XSS, else SQLi, else RCE; first hit wins. Else '..' in
    the URL is HTTP Susp URL."""
    q = url.find("?")
    if q >= 0:
        for part in url[q + 1:].split("&"):
            if "=" not in part:
                break
            val = part.split("=", 1)[1]
            if not val:
                continue
            try:
                dec = urllib.parse.unquote_plus(val, errors="strict")
            except UnicodeDecodeError:
                dec = urllib.parse.unquote_to_bytes(val.replace("+", " ")).decode("latin-1")
            if re.search(r"%(?![0-9a-fA-F]{2})", val):
                continue  # invalid escape: nDPI skips the value
            if not dec:
                continue
            if is_xss(dec):
                return "XSS Attack"
            if is_sqli(dec):
                return "SQL Injection"
            if is_rce(dec):
                return "RCE Injection"
    if ".." in url:
        return "HTTP Susp URL"
    return None


def path_rce(path):
    """http.c ndpi_check_http_url on the path part."""
    if "<php>" in path or path.startswith("/shell?"):
        return True
    return False


# ---------------------------------------------------------------- the flow rules


def ja4_version(ja4):
    return ja4[1:3] if len(ja4) >= 10 else None


def assess(r):
    out = set()
    master, app, l4 = r["master"], r["app"], r["l4"]
    dpi = r["confidence"].startswith("DPI")
    s2c = int(r["s2c_pkts"] or 0)
    # Unidirectional Traffic
    if s2c == 0 and not is_multi_or_broadcast(r["dst_ip"]):
        exempt = {"NetFlow", "sFlow", "RTP", "collectd"}
        if not (app in exempt or master in exempt or (l4 == "UDP" and "Syslog" in (app, master))):
            out.add("Unidirectional Traffic")
    # Known Proto on Non Std Port
    if dpi and l4 in ("TCP", "UDP") and master != "Unknown" and app not in ("FTP_DATA", "ntop"):
        ports = {int(r["src_port"] or 0), int(r["dst_port"] or 0)}
        cand = [p for p in (master, app) if (l4, p) in PORTS]
        if cand and not any(ports & PORTS[(l4, p)] for p in cand):
            out.add("Known Proto on Non Std Port")
    # Unsafe Protocol (breed of the application)
    if app in UNSAFE_APPS:
        out.add("Unsafe Protocol")
    # Desktop/File Sharing
    if app == "RDP" or (app == "AnyDesk" and l4 == "TCP"):
        out.add("Desktop/File Sharing")
    host = r["sni"]
    ja4 = r["ja4"]
    if master in HTTP_MASTERS:
        if http_numeric_host(host):
            out.add("HTTP/TLS/QUIC Numeric Hostname/SNI")
        if host and not valid_hostname(host):
            out.add("Non-Printable/Invalid Chars Detected")
        url = r["url"]
        if url:
            ua = r["user_agent"]
            if not ua or susp_ua(ua):
                out.add("HTTP Susp User-Agent")
            slash = url.find("/")
            path = url[slash:] if slash >= 0 else ""
            if path_rce(path):
                out.add("RCE Injection")
            k = url_risk(url)
            if k:
                out.add(k)
    if master in TLS_LIKE and ja4:
        ver = ja4_version(ja4)
        if host and inet_pton_ok(host):
            out.add("HTTP/TLS/QUIC Numeric Hostname/SNI")
        if host and not valid_hostname(host):
            out.add("Non-Printable/Invalid Chars Detected")
        old = ver in ("10", "11", "s3", "s2")
        if old:
            out.add("Obsolete TLS (v1.1 or older)")
        if ver not in ("10", "s3", "s2", "00") and not host:
            out.add("Missing SNI TLS Extn")
        if ver not in ("10", "11", "s3", "s2", "00") and ja4[8:10] == "00":
            out.add("TLS (probably) Not Carrying HTTPS")
    if master in ("DNS", "LLMNR") and host and not valid_hostname(host):
        out.add("Non-Printable/Invalid Chars Detected")
    return out


def main():
    rows = list(csv.DictReader(open(CORPUS)))
    truth = Counter()
    for r in rows:
        for k in filter(None, r["risks"].split(";")):
            truth[k] += 1
    tp, fp, fn = Counter(), Counter(), Counter()
    for r in rows:
        want = set(filter(None, r["risks"].split(";")))
        got = assess(r)
        for k in got & want:
            tp[k] += 1
        for k in got - want:
            fp[k] += 1
        for k in want - got:
            fn[k] += 1
    decided = {k for k in list(tp) + list(fp)}
    print(f"{'risk kind':40} {'nDPI':>5} {'ours':>5} {'TP':>5} {'prec':>6} {'recall':>6}")
    for k, n in truth.most_common(20):
        if k not in decided:
            print(f"{k:40} {n:5}     -     -      -      -   (needs facts the corpus lacks)")
            continue
        ours = tp[k] + fp[k]
        p = tp[k] / ours if ours else 0.0
        rc = tp[k] / n if n else 0.0
        print(f"{k:40} {n:5} {ours:5} {tp[k]:5} {p:6.3f} {rc:6.3f}")


if __name__ == "__main__":
    main()
