"""The scenarios of netcap.py: a server and a client, each a real implementation.

Packages (Debian): python3-pyftpdlib, python3-openssl, dovecot-imapd, dovecot-pop3d,
python3-aiosmtpd, dnsmasq-base, python3-websockets, nghttp2-server, nghttp2-client, tcpdump,
iproute2. Clients use Python's standard library
(ftplib, imaplib, poplib, smtplib, socket), run by /usr/bin/python3, which sees Debian's
packages. The parametrised scenarios (below ADDR_SH) name theirs where they start.

Second round (quic, mysql, ldap, smb, sip, irc, stun, radius, socks, openvpn, wireguard,
modbus, vnc, dhcp):

    apt-get install -y --no-install-recommends mariadb-server mariadb-client slapd ldap-utils \
        samba smbclient sip-tester ngircd sic coturn freeradius freeradius-utils dante-server \
        openvpn wireguard-go wireguard-tools tigervnc-standalone-server dnsmasq-base udhcpc \
        iputils-ping
    python3 -m pip install aioquic 'pymodbus>=3.10,<4' vncdotool   # the python3 on PATH

(DEBIAN_FRONTEND=noninteractive for slapd's questions; a policy-rc.d that denies starts keeps
the daemons from starting outside the namespaces. The openvpn and wireguard scenarios need
/dev/net/tun.)
"""
import os

PY = "/usr/bin/python3"
# The python3 on PATH, where pip installs (aiocoap, aioquic, pymodbus, vncdotool).
PYENV = __import__("shutil").which("python3") or PY
HERE = os.path.dirname(os.path.abspath(__file__))

# pyftpdlib 1.5 (Debian) with an anonymous, read-only home holding two files; its TLS handler
# (explicit FTPS, RFC 4217) with a self-signed certificate made at start.
FTP_SERVER = r"""
import os, subprocess
from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler, TLS_FTPHandler
from pyftpdlib.servers import FTPServer
work = os.environ["WORK"]
home = os.path.join(work, "home"); os.makedirs(home, exist_ok=True)
open(os.path.join(home, "notes.txt"), "w").write("wirespeed ftp test\n" * 20)
open(os.path.join(home, "data.bin"), "wb").write(bytes(range(256)) * 16)
cert = os.path.join(work, "cert.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=ftp.example.org", "-keyout", cert, "-out", cert],
               check=True, capture_output=True)
auth = DummyAuthorizer(); auth.add_anonymous(home)
class H(TLS_FTPHandler):
    pass
H.certfile = cert
H.authorizer = auth
H.tls_control_required = False
H.tls_data_required = False
H.permit_foreign_addresses = True
H.passive_ports = range(50000, 50100)
FTPServer((os.environ["SERVER"], 21), H).serve_forever()
"""

# ftplib: a plain session with every way to open a data connection (PASV, EPSV, PORT, EPRT),
# then a second session that upgrades with AUTH TLS (SNI ftp.example.org) and lists over
# a protected data connection.
FTP_CLIENT = r"""
import ftplib, os, socket, ssl
srv = os.environ["SERVER"]
f = ftplib.FTP(); f.connect(srv, 21, timeout=10); f.login()
f.set_pasv(True); f.sendcmd("TYPE A"); f.retrlines("LIST", lambda l: None)      # PASV
f.af = 10  # ftplib uses EPSV when the control connection is not IPv4
f.sendcmd("TYPE I"); f.retrbinary("RETR data.bin", lambda b: None)              # EPSV
f.af = 2
f.set_pasv(False); f.retrlines("NLST", lambda l: None)                          # PORT
ls = socket.create_server((os.environ["CLIENT"], 0))                              # EPRT
f.voidcmd("EPRT |1|%s|%d|" % (os.environ["CLIENT"], ls.getsockname()[1]))
f.sendcmd("RETR notes.txt"); c, _ = ls.accept()
while c.recv(4096):
    pass
c.close(); ls.close(); f.voidresp()
f.quit()
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
class T(ftplib.FTP_TLS):
    def auth(self):
        resp = self.voidcmd("AUTH TLS")
        self.sock = self.context.wrap_socket(self.sock, server_hostname="ftp.example.org")
        self.file = self.sock.makefile(mode="r", encoding=self.encoding)
        return resp
t = T(context=ctx); t.connect(srv, 21, timeout=10); t.auth(); t.login(); t.prot_p()
t.retrlines("LIST", lambda l: None); t.quit()
print("ftp done")
"""

DOVECOT_CONF = r"""
protocols = imap pop3
listen = {server}
base_dir = {work}/run
state_dir = {work}/state
log_path = /dev/stderr
ssl = yes
ssl_cert = </etc/dovecot/private/dovecot.pem
ssl_key = </etc/dovecot/private/dovecot.key
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{work}/mail/%u
passdb {{
  driver = static
  args = password=secret
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={work}/mail/%u
}}
service imap-login {{
  inet_listener imaps {{
    port = 0
  }}
}}
service pop3-login {{
  inet_listener pop3s {{
    port = 0
  }}
}}
"""

DOVECOT_SERVER = r"""
import os, subprocess
w = os.environ["WORK"]
os.chmod(w, 0o755)  # the mail user (nobody) must reach its home below it
for d in ("run", "state", "mail"):
    os.makedirs(os.path.join(w, d), exist_ok=True)
os.chmod(os.path.join(w, "mail"), 0o1777)
conf = os.path.join(w, "dovecot.conf")
open(conf, "w").write(CONF.format(server=os.environ["SERVER"], work=w))
os.execvp("dovecot", ["dovecot", "-F", "-c", conf])
""".replace("CONF", repr(DOVECOT_CONF))

# imaplib and poplib upgrade with STARTTLS / STLS (SNI mail.example.org), log in, leave.
MAIL_CLIENT = r"""
import imaplib, os, poplib, ssl
srv = os.environ["SERVER"]
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
class C(ssl.SSLContext):
    pass
def wrap(sock, **kw):
    return ctx.wrap_socket(sock, server_hostname="mail.example.org")
class Ctx:
    wrap_socket = staticmethod(wrap)
    def __getattr__(self, n): return getattr(ctx, n)
plain = bool(os.environ.get("NC_PLAIN"))  # no upgrade: the whole session in clear
i = imaplib.IMAP4(srv, 143)
if not plain:
    i.starttls(ssl_context=Ctx())
i.login("alice", "secret"); i.select("INBOX"); i.logout()
p = poplib.POP3(srv, 110, timeout=10)
if not plain:
    p.stls(context=Ctx())
p.user("alice"); p.pass_("secret"); p.stat(); p.quit()
print("mail done")
"""

# aiosmtpd (Debian) with STARTTLS required; smtplib upgrades (SNI mail.example.org) and sends.
SMTP_SERVER = r"""
import os, ssl, subprocess, time
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Sink
w = os.environ["WORK"]; cert = os.path.join(w, "cert.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=mail.example.org", "-keyout", cert, "-out", cert],
               check=True, capture_output=True)
ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH); ctx.load_cert_chain(cert)
plain = bool(os.environ.get("NC_PLAIN"))  # no STARTTLS offered: the mail in clear
c = Controller(Sink(), hostname=os.environ["SERVER"], port=25,
               tls_context=None if plain else ctx, require_starttls=not plain)
c.start()
while True:
    time.sleep(60)
"""

SMTP_CLIENT = r"""
import os, smtplib, ssl
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
s = smtplib.SMTP(os.environ["SERVER"], 25, local_hostname="client.example.org", timeout=10)
s.ehlo()
if not os.environ.get("NC_PLAIN"):
    s._host = "mail.example.org"; s.starttls(context=ctx); s.ehlo()
s.sendmail("alice@example.org", ["bob@example.net"], "Subject: hi\r\n\r\nhello\r\n")
s.quit()
print("smtp done")
"""

# Linux TCP Fast Open (net.ipv4.tcp_fastopen=3): the first connection gets a cookie, the
# second carries its HTTP request in the SYN.
TFO_SERVER = r"""
import os, socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_FASTOPEN, 16)
s.bind((os.environ["SERVER"], 80)); s.listen(8)
while True:
    c, _ = s.accept()
    c.recv(4096)
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
    c.close()
"""

TFO_CLIENT = r"""
import os, socket, time
req = (b"GET /tfo HTTP/1.1\r\nHost: tfo.example.org\r\nUser-Agent: netcap-tfo/1\r\n"
       b"Accept: */*\r\n\r\n")
for _ in range(2):
    c = socket.socket()
    c.sendto(req, socket.MSG_FASTOPEN, (os.environ["SERVER"], 80))
    c.recv(4096); c.close(); time.sleep(0.3)
print("tfo done")
"""

# dnsmasq (Debian) answers for example.org; the client sends three queries, one after the
# other's answer, from one socket (one 5-tuple), as a stub resolver that keeps its port does.
DNS_SERVER = ["dnsmasq", "--no-daemon", "--no-resolv", "--no-hosts", "--bind-interfaces",
              "--listen-address=192.0.2.2", "--address=/example.org/192.0.2.80",
              "--address=/example.net/192.0.2.81", "--log-facility=-"]

DNS_CLIENT = r"""
import os, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((os.environ["CLIENT"], 40053))
s.settimeout(5)
for i, name in enumerate(["www.example.org", "mail.example.org", "cdn.example.net"]):
    q = struct.pack("!HHHHHH", 0x1000 + i, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
    q += struct.pack("!HH", 1, 1)
    s.sendto(q, (os.environ["SERVER"], 53)); s.recvfrom(2048)
print("dns done")
"""

# python3-websockets (Debian): an echo server; the client upgrades (HTTP/1.1 101, Upgrade:
# websocket), sends a text message and closes.
WS_SERVER = r"""
import asyncio, os, websockets
async def echo(ws, *_):
    async for m in ws:
        await ws.send(m)
async def main():
    async with websockets.serve(echo, os.environ["SERVER"], 8765):
        await asyncio.Future()
asyncio.run(main())
"""

WS_CLIENT = r"""
import asyncio, os, websockets
async def main():
    async with websockets.connect("ws://%s:8765/chat" % os.environ["SERVER"]) as ws:
        await ws.send("hello wirespeed"); await ws.recv()
asyncio.run(main())
print("websocket done")
"""

# websockets (Debian python3-websockets) without permessage-deflate: the server greets first,
# then echoes one text message; the frames after the handshake are what a capture that starts
# mid-connection sees.
WS_PLAIN_SERVER = r"""
import asyncio, os, websockets
async def greet(ws, *_):
    await ws.send("greetings from the echo server")
    async for m in ws:
        await ws.send(m)
async def main():
    async with websockets.serve(greet, os.environ["SERVER"], 8765, compression=None):
        await asyncio.Future()
asyncio.run(main())
"""
WS_PLAIN_CLIENT = r"""
import asyncio, os, websockets
async def main():
    async with websockets.connect("ws://%s:8765/chat" % os.environ["SERVER"],
                                  compression=None) as ws:
        await ws.recv(); await ws.send("hello wirespeed"); await ws.recv()
asyncio.run(main())
print("websocket done")
"""

# nghttp2 (Debian nghttp2-server, nghttp2-client): HTTP/2 over cleartext with prior knowledge
# (the connection preface first). (nghttpd without TLS does not take the h2c upgrade.)
H2_SERVER = ["sh", "-c", 'echo hello > "$WORK/index.html"; '
             'exec nghttpd --no-tls -a "$SERVER" -d "$WORK" 8080']
H2_CLIENT = ["sh", "-c", 'nghttp -n "http://$SERVER:8080/index.html" && echo h2 done']

# tftp-hpa 5.2 (Debian tftpd-hpa, tftp-hpa): a read (RRQ, octet) of a 600-byte file, so two
# DATA blocks, then a write (WRQ, netascii) the server may create (-c).
TFTP_SERVER = ["sh", "-c", 'head -c 600 /dev/zero | tr "\\0" N > "$WORK/hello.txt"; '
               'exec in.tftpd -L -c -u root -a "$SERVER:69" -s "$WORK"']
TFTP_CLIENT = ["sh", "-c", 'mkdir -p "$WORK/c" && cd "$WORK/c" && echo note > up.txt && '
               'tftp "$SERVER" -m octet -c get hello.txt && '
               'tftp "$SERVER" -m netascii -c put up.txt && echo tftp done']

# aiocoap 0.4.17 (PyPI, installed with pip into the python3 on PATH): a confirmable GET of /temperature on udp/5683, answered 2.05 Content.
COAP_SERVER = r"""
import asyncio, aiocoap, aiocoap.resource as r
class T(r.Resource):
    async def render_get(self, req):
        return aiocoap.Message(payload=b"22.5", content_format=0)
async def main():
    site = r.Site(); site.add_resource(["temperature"], T())
    await aiocoap.Context.create_server_context(site, bind=(__import__("os").environ["SERVER"], 5683))
    await asyncio.get_running_loop().create_future()
asyncio.run(main())
"""
COAP_CLIENT = r"""
import asyncio, os, aiocoap
async def main():
    c = await aiocoap.Context.create_client_context()
    m = aiocoap.Message(code=aiocoap.GET, uri="coap://%s/temperature" % os.environ["SERVER"])
    print((await c.request(m).response).payload)
asyncio.run(main())
print("coap done")
"""

# Apache Thrift 0.25.0 (PyPI thrift) encodes; the server only reads. Over TCP a strict binary
# call "getStatus" (seqid 1, empty arguments) in the buffered transport, then the same call in
# the framed transport; over UDP 6831 (Jaeger's agent port) a compact oneway "emitBatch" with
# an empty struct argument, as Jaeger's agent.thrift names it.
THRIFT_SERVER = r"""
import os, socket, threading
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((os.environ["SERVER"], 6831))
threading.Thread(target=lambda: [u.recvfrom(65535) for _ in iter(int, 1)], daemon=True).start()
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((os.environ["SERVER"], 9090)); t.listen()
while True:
    c, _ = t.accept()
    while c.recv(65535):
        pass
    c.close()
"""
THRIFT_CLIENT = r"""
import os, socket
from thrift.transport import TSocket, TTransport
from thrift.protocol import TBinaryProtocol, TCompactProtocol
from thrift.Thrift import TMessageType, TType
def call(p, name, kind):
    p.writeMessageBegin(name, kind, 1); p.writeStructBegin("args"); p.writeFieldStop()
    p.writeStructEnd(); p.writeMessageEnd(); p.trans.flush()
for wrap in (TTransport.TBufferedTransport, TTransport.TFramedTransport):
    tr = wrap(TSocket.TSocket(os.environ["SERVER"], 9090)); tr.open()
    call(TBinaryProtocol.TBinaryProtocol(tr), "getStatus", TMessageType.CALL); tr.close()
buf = TTransport.TMemoryBuffer()
p = TCompactProtocol.TCompactProtocol(buf)
p.writeMessageBegin("emitBatch", TMessageType.ONEWAY, 1)
p.writeStructBegin("args"); p.writeFieldBegin("batch", TType.STRUCT, 1)
p.writeStructBegin("Batch"); p.writeFieldStop(); p.writeStructEnd(); p.writeFieldEnd()
p.writeFieldStop(); p.writeStructEnd(); p.writeMessageEnd()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(buf.getvalue(), (os.environ["SERVER"], 6831))
print("thrift done")
"""

# smpplib 2.2.4 (PyPI) as the ESME: bind_transceiver to tcp/2775 (SMPP 3.4 section 4.1.5);
# the SMSC side is a few lines that answer bind_transceiver_resp (system id "SMSC").
SMPP_SERVER = r"""
import os, socket, struct
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((os.environ["SERVER"], 2775)); t.listen()
while True:
    c, _ = t.accept()
    while True:
        h = c.recv(16)
        if len(h) < 16:
            break
        n, cid, st, seq = struct.unpack(">IIII", h)
        c.recv(n - 16)
        if cid == 9:
            body = b"SMSC\0"
            c.sendall(struct.pack(">IIII", 16 + len(body), 0x80000009, 0, seq) + body)
        elif cid == 6:
            c.sendall(struct.pack(">IIII", 16, 0x80000006, 0, seq))
    c.close()
"""
SMPP_CLIENT = r"""
import os, smpplib.client
c = smpplib.client.Client(os.environ["SERVER"], 2775)
c.connect(); c.bind_transceiver(system_id="esme01", password="secret")
c.unbind(); c.disconnect()
print("smpp done")
"""

# pynetdicom 3.0.4 (PyPI): a storage SCP and a C-ECHO from an SCU, AE titles "ECHOSCP" and
# "ECHOSCU".
DICOM_SERVER = r"""
import os
from pynetdicom import AE
from pynetdicom.sop_class import Verification
ae = AE(ae_title="ECHOSCP"); ae.add_supported_context(Verification)
ae.start_server((os.environ["SERVER"], 11112), block=True)
"""
DICOM_CLIENT = r"""
import os
from pynetdicom import AE
from pynetdicom.sop_class import Verification
ae = AE(ae_title="ECHOSCU"); ae.add_requested_context(Verification)
a = ae.associate(os.environ["SERVER"], 11112, ae_title="ECHOSCP")
assert a.is_established
a.send_c_echo(); a.release()
print("dicom done")
"""

# YAZ (Debian yaz): yaz-ztest as the Z39.50 target on tcp/210 (IANA z39.50), yaz-client opening a session
# (InitRequest) and quitting.
Z3950_SERVER = ["sh", "-c", 'exec yaz-ztest "tcp:$SERVER:210"']
Z3950_CLIENT = ["sh", "-c", 'printf "open tcp:$SERVER:210\\nquit\\n" | yaz-client && echo z3950 done']

# rpcbind 1.2.6 (Debian rpcbind) answering rpcinfo's portmapper calls: a version 2 GETPORT
# (PMAPPROC_GETPORT) for NFS (100003) version 3 over UDP, from "rpcinfo -n 111 -u".
NFS_SERVER = ["rpcbind", "-f", "-w"]
NFS_CLIENT = ["sh", "-c", 'rpcinfo -p "$SERVER"; rpcinfo -u "$SERVER" 100003 3; echo nfs done']

# asyncua 2.1.0 (PyPI): a server on tcp/4840 and a client that connects (Hello, Acknowledge,
# OpenSecureChannel, session) and disconnects.
OPCUA_SERVER = r"""
import asyncio, os
from asyncua import Server
async def main():
    s = Server(); await s.init()
    s.set_endpoint("opc.tcp://%s:4840/wirespeed/" % os.environ["SERVER"])
    async with s:
        await asyncio.get_running_loop().create_future()
asyncio.run(main())
"""
OPCUA_CLIENT = r"""
import asyncio, os
from asyncua import Client
async def main():
    async with Client("opc.tcp://%s:4840/wirespeed/" % os.environ["SERVER"]) as c:
        await c.get_namespace_array()
asyncio.run(main())
print("opcua done")
"""

# pptpd 1.4.0 (Debian pptpd) and pptp-linux 1.10.0 (Debian pptp-linux) without pppd: the
# client opens the control connection (Start-Control-Connection-Request) and a call; the
# timeout ends it, since without pppd the client never finishes.
PPTP_SERVER = ["sh", "-c", 'printf "localip 198.51.100.1\\nremoteip 198.51.100.2-9\\n" '
               '> "$WORK/pptpd.conf"; exec pptpd -f -c "$WORK/pptpd.conf" -l "$SERVER"']
PPTP_CLIENT = ["sh", "-c", 'timeout 5 pptp "$SERVER" --nolaunchpppd >/dev/null 2>&1; '
               'echo pptp done']

# omniORB 4.2.5 (Debian omniorb-nameserver, omniorb): omniNames on tcp/2809 and nameclt listing
# the naming context, GIOP over IIOP.
CORBA_SERVER = ["sh", "-c", 'exec omniNames -start 2809 -datadir "$WORK" '
                '-ORBendPoint "giop:tcp:$SERVER:2809"']
CORBA_CLIENT = ["sh", "-c", 'nameclt -ORBInitRef "NameService=corbaloc::$SERVER:2809/NameService" '
                'list; echo corba done']

# os-ken 4.2.2 (PyPI, OpenStack's Ryu fork) as the controller on tcp/6653 (its OpenFlow
# handshake handler alone); the "switch" is os-ken's own OpenFlow 1.3 message encoder
# (a HELLO), sent over a plain socket; the controller answers HELLO and FEATURES_REQUEST.
OPENFLOW_SERVER = r"""
import os
from os_ken.lib import hub
hub.patch(thread=False)
from os_ken import cfg
from os_ken.base import app_manager
import os_ken.controller.controller  # noqa: F401 (registers the ofp-* options)
cfg.CONF(["--ofp-listen-host", os.environ["SERVER"], "--ofp-tcp-listen-port", "6653"],
         project="os_ken")
m = app_manager.AppManager.get_instance()
m.load_apps(["os_ken.controller.ofp_handler"])
hub.joinall(m.instantiate_apps(**m.create_contexts()))
"""
OPENFLOW_CLIENT = r"""
import os, socket, time
from os_ken.ofproto import ofproto_v1_3 as ofp, ofproto_v1_3_parser as p
class DP:
    ofproto = ofp; ofproto_parser = p
s = socket.create_connection((os.environ["SERVER"], 6653))
h = p.OFPHello(DP()); h.xid = 1; h.serialize(); s.sendall(h.buf)
time.sleep(1)
print(s.recv(4096).hex())
s.close()
print("openflow done")
"""

# Xvfb 21.1.7 (Debian xvfb) as the XDMCP display: "Xvfb :7 -query SERVER" sends Query to
# udp/177. No display manager is installed; a few lines answer as one would (XDMCP 1.1):
# Willing (opcode 5) to the Query, so that Xvfb sends its Request (7), then Decline (9).
XDMCP_SERVER = r"""
import os, socket, struct
def a8(b):
    return struct.pack(">H", len(b)) + b
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((os.environ["SERVER"], 177))
while True:
    d, peer = u.recvfrom(65535)
    op = struct.unpack(">H", d[2:4])[0]
    if op == 2:
        body = a8(b"") + a8(b"manager") + a8(b"willing")
        u.sendto(struct.pack(">HHH", 1, 5, len(body)) + body, peer)
    elif op == 7:
        body = a8(b"no sessions here") + a8(b"") + a8(b"")
        u.sendto(struct.pack(">HHH", 1, 9, len(body)) + body, peer)
"""
XDMCP_CLIENT = ["sh", "-c", 'timeout 6 Xvfb :7 -query "$SERVER" -once -nolisten tcp '
                '>/dev/null 2>&1; echo xdmcp done']

# xknx 4.0.0 (PyPI) in routing mode: one GroupValueWrite of 1 to group 0/0/1, sent as a
# KNXnet/IP ROUTING_INDICATION to the KNX multicast group 224.0.23.12:3671 out of the client's
# interface; the capture sees it on the other end of the link, where nothing listens.
KNX_CLIENT = r"""
import asyncio, os
from xknx import XKNX
from xknx.io import ConnectionConfig, ConnectionType
from xknx.dpt import DPTBinary
from xknx.telegram import GroupAddress, Telegram
from xknx.telegram.apci import GroupValueWrite
async def main():
    cfg = ConnectionConfig(connection_type=ConnectionType.ROUTING, local_ip=os.environ["CLIENT"])
    async with XKNX(connection_config=cfg) as x:
        await x.telegrams.put(Telegram(destination_address=GroupAddress("0/0/1"),
                                       payload=GroupValueWrite(DPTBinary(1))))
        await asyncio.sleep(1)
asyncio.run(main())
print("knx done")
"""

# bacpypes3 0.0.110 (PyPI): a device (instance 1000) on udp/47808 and a client (instance 999)
# that broadcasts a global Who-Is, answered by the device's I-Am.
BACNET_SERVER = r"""
import asyncio, os
from bacpypes3.argparse import SimpleArgumentParser
from bacpypes3.app import Application
async def main():
    a = SimpleArgumentParser().parse_args(["--address", os.environ["SERVER"] + "/24",
                                           "--instance", "1000", "--name", "server"])
    Application.from_args(a)
    await asyncio.get_running_loop().create_future()
asyncio.run(main())
"""
BACNET_CLIENT = r"""
import asyncio, os
from bacpypes3.argparse import SimpleArgumentParser
from bacpypes3.app import Application
async def main():
    a = SimpleArgumentParser().parse_args(["--address", os.environ["CLIENT"] + "/24",
                                           "--instance", "999", "--name", "client"])
    app = Application.from_args(a)
    print(await app.who_is(timeout=2))
    app.close()
asyncio.run(main())
print("bacnet done")
"""

# cassandra-driver 3.30.1 (PyPI, the DataStax Python driver) connecting to tcp/9042. No
# Cassandra is installed; a few lines answer the way native_protocol_v4.spec says a node does
# (SUPPORTED to OPTIONS, READY to STARTUP, an error to anything else), enough for the driver to
# send its OPTIONS and STARTUP frames. The client gives up afterwards; that is expected.
CASSANDRA_SERVER = r"""
import os, socket, struct, threading
def smap(d):
    out = struct.pack(">H", len(d))
    for k, vs in d.items():
        out += struct.pack(">H", len(k)) + k.encode() + struct.pack(">H", len(vs))
        for v in vs:
            out += struct.pack(">H", len(v)) + v.encode()
    return out
def serve(c):
    while True:
        h = c.recv(9)
        if len(h) < 9:
            return
        ver, fl, st, op, n = struct.unpack(">BBhBI", h)
        while n:
            n -= len(c.recv(n))
        if op == 5:
            body, rop = smap({"CQL_VERSION": ["3.4.5"], "COMPRESSION": ["lz4", "snappy"]}), 6
        elif op == 1:
            body, rop = b"", 2
        else:
            msg = b"not a real node"
            body, rop = struct.pack(">iH", 0, len(msg)) + msg, 0
        c.sendall(struct.pack(">BBhBI", 0x80 | (ver & 0x7f), 0, st, rop, len(body)) + body)
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((os.environ["SERVER"], 9042)); t.listen()
while True:
    threading.Thread(target=serve, args=(t.accept()[0],), daemon=True).start()
"""
CASSANDRA_CLIENT = r"""
import os
from cassandra.cluster import Cluster
try:
    Cluster([os.environ["SERVER"]], protocol_version=4, connect_timeout=3,
            control_connection_timeout=3).connect()
except Exception as e:
    print("as expected:", type(e).__name__)
print("cassandra done")
"""

# python-bitcoinlib 0.12.2 (PyPI) encodes the "version" message a node opens a connection with
# (mainnet magic), sent to tcp/8333, where a sink reads it; no Bitcoin node is installed.
SINK_8333 = r"""
import os, socket
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((os.environ["SERVER"], 8333)); t.listen()
while True:
    c, _ = t.accept()
    while c.recv(65535):
        pass
    c.close()
"""
BITCOIN_CLIENT = r"""
import os, socket
from bitcoin.messages import msg_version
v = msg_version()
v.addrTo.ip, v.addrTo.port = os.environ["SERVER"], 8333
v.addrFrom.ip, v.addrFrom.port = os.environ["CLIENT"], 8333
s = socket.create_connection((os.environ["SERVER"], 8333)); s.sendall(v.to_bytes()); s.close()
print("bitcoin done")
"""

# Prosody 0.12 (Debian) requiring encryption; slixmpp (Debian python3-slixmpp) logs in as
# alice@xmpp.example.org, upgrading the stream with STARTTLS (SNI xmpp.example.org), and leaves.
XMPP_CONF = """
pidfile = "{w}/prosody.pid"
data_path = "{w}/data"
daemonize = false
interfaces = {{ "{server}" }}
modules_enabled = {{ "roster"; "saslauth"; "tls"; "disco"; "ping"; "posix" }}
c2s_require_encryption = true
authentication = "internal_plain"
log = {{ error = "*console" }}
VirtualHost "xmpp.example.org"
  ssl = {{ key = "{key}"; certificate = "{cert}" }}
"""

XMPP_SERVER = r"""
import os, subprocess
w = os.environ["WORK"]; os.chmod(w, 0o755)
os.makedirs(os.path.join(w, "data"), exist_ok=True)
key, cert = os.path.join(w, "key.pem"), os.path.join(w, "cert.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=xmpp.example.org", "-keyout", key, "-out", cert],
               check=True, capture_output=True)
conf = os.path.join(w, "prosody.cfg.lua")
open(conf, "w").write(CONF.format(w=w, server=os.environ["SERVER"], key=key, cert=cert))
os.system("chown -R prosody %s" % w)
subprocess.run(["prosodyctl", "--config", conf, "register", "alice", "xmpp.example.org",
                "secret"], check=True)
os.execvp("prosody", ["prosody", "--config", conf, "-F"])
""".replace("CONF", repr(XMPP_CONF))

XMPP_CLIENT = r"""
import asyncio, os, ssl, slixmpp
class C(slixmpp.ClientXMPP):
    def __init__(self):
        super().__init__("alice@xmpp.example.org", "secret")
        self.ssl_context.check_hostname = False
        self.ssl_context.verify_mode = ssl.CERT_NONE
        self.add_event_handler("session_start", self.start)
    async def start(self, _):
        self.send_presence(); self.disconnect()
c = C()
c.connect(address=(os.environ["SERVER"], 5222))
asyncio.get_event_loop().run_until_complete(c.disconnected)
print("xmpp done")
"""

# --- Scenarios with a choice of address family and port (scripts/heldout.py) ---------------
# They read NC_V6 (set: the server listens on SERVER6 and the client connects there), NC_PORT
# (the server's port; each has the protocol's usual port as default) and NC_HOST (the name the
# client asks for: HTTP Host, TLS SNI). Debian packages: openssh-server, mosquitto,
# mosquitto-clients, redis-server, chrony, postgresql, dnsmasq-base, curl, openssl, git, rsync,
# snmpd, snmp, memcached, libmemcached-tools, inetutils-telnetd, inetutils-telnet, socat.
ADDR_SH = 'A=${NC_V6:+$SERVER6}; A=${A:-$SERVER}; '
# curl --resolve wants an IPv6 address in brackets.
RESOLVE_SH = ADDR_SH + 'R=$A; [ -n "$NC_V6" ] && R="[$A]"; '

# Python's http.server (standard library) serving one page; curl fetches it twice, on two
# connections, with Host NC_HOST.
HTTP_SERVER = r"""
import http.server, os, socket
v6 = bool(os.environ.get("NC_V6"))
addr = os.environ["SERVER6" if v6 else "SERVER"]
os.chdir(os.environ["WORK"]); open("index.html", "w").write("<p>wirespeed held-out</p>\n" * 40)
class S(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6 if v6 else socket.AF_INET
S((addr, int(os.environ.get("NC_PORT", "80"))), http.server.SimpleHTTPRequestHandler).serve_forever()
"""
HTTP_CLIENT = ["sh", "-c", RESOLVE_SH + 'H=${NC_HOST:-www.example.org}; P=${NC_PORT:-80}; '
               'for i in 1 2; do curl -sS -o /dev/null --resolve "$H:$P:$R" '
               '"http://$H:$P/index.html" || exit 1; done; echo http done']

# openssl s_server (a self-signed certificate for NC_HOST) answering with its status page
# (-www); curl -k connects by name through --resolve, so the ClientHello carries the SNI.
HTTPS_SERVER = ["sh", "-c", ADDR_SH + 'H=${NC_HOST:-www.example.org}; '
                'openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$H" '
                '-keyout "$WORK/k.pem" -out "$WORK/c.pem" 2>/dev/null; F=-4; '
                '[ -n "$NC_V6" ] && F=-6; '
                'exec openssl s_server $F -quiet -accept "${NC_PORT:-443}" -www '
                '-cert "$WORK/c.pem" -key "$WORK/k.pem"']
HTTPS_CLIENT = ["sh", "-c", RESOLVE_SH + 'H=${NC_HOST:-www.example.org}; P=${NC_PORT:-443}; '
                'for i in 1 2; do curl -sS -k -o /dev/null --resolve "$H:$P:$R" '
                '"https://$H:$P/" || exit 1; done; echo https done']

# OpenSSH's sshd (host key and the client's key made at start) and ssh, which logs in with the
# key and runs one command.
SSH_SERVER = ["sh", "-c", ADDR_SH + 'mkdir -p /run/sshd; '
              'ssh-keygen -q -t ed25519 -N "" -f "$WORK/hk"; '
              'ssh-keygen -q -t ed25519 -N "" -f "$WORK/ck"; cp "$WORK/ck.pub" "$WORK/ak"; '
              'exec /usr/sbin/sshd -D -e -f /dev/null -p "${NC_PORT:-22}" -o "ListenAddress=$A" '
              '-h "$WORK/hk" -o "AuthorizedKeysFile=$WORK/ak" -o StrictModes=no '
              '-o PermitRootLogin=yes -o UsePAM=no -o PidFile=none']
SSH_CLIENT = ["sh", "-c", ADDR_SH + 'ssh -q -i "$WORK/ck" -o StrictHostKeyChecking=no '
              '-o UserKnownHostsFile=/dev/null -o BatchMode=yes -p "${NC_PORT:-22}" "root@$A" '
              'echo ssh done']

# dnsmasq answering for example.org; the client (standard library) sends three queries over
# UDP from one socket and one over TCP (two-byte length prefix, RFC 1035 4.2.2).
DNS2_SERVER = ["sh", "-c", ADDR_SH + 'exec dnsmasq --no-daemon --no-resolv --no-hosts '
               '--bind-interfaces --listen-address="$A" --port="${NC_PORT:-53}" '
               '--address=/example.org/192.0.2.80 --address=/example.org/2001:db8::80 '
               '--log-facility=-']
DNS2_CLIENT = r"""
import os, socket, struct
v6 = bool(os.environ.get("NC_V6"))
fam = socket.AF_INET6 if v6 else socket.AF_INET
dst = (os.environ["SERVER6" if v6 else "SERVER"], int(os.environ.get("NC_PORT", "53")))
def query(i, name, qtype):
    q = struct.pack("!HHHHHH", 0x2000 + i, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
    return q + struct.pack("!HH", qtype, 1)
s = socket.socket(fam, socket.SOCK_DGRAM); s.settimeout(5)
for i, (name, t) in enumerate([("www.example.org", 1), ("mail.example.org", 28),
                               ("www.example.org", 15)]):
    s.sendto(query(i, name, t), dst); s.recvfrom(2048)
t = socket.create_connection(dst, timeout=5)
q = query(9, "api.example.org", 1); t.sendall(struct.pack("!H", len(q)) + q)
n = struct.unpack("!H", t.recv(2))[0]; t.recv(n); t.close()
print("dns done")
"""

# Mosquitto 2 (anonymous listener; "user root" keeps it from dropping privileges before it
# binds, so a port below 1024 works) and its clients: a retained publish at QoS 1, then a
# subscriber that takes that one message.
MQTT_SERVER = ["sh", "-c", ADDR_SH + 'printf "listener ${NC_PORT:-1883} $A\\n'
               'allow_anonymous true\\npersistence false\\nuser root\\n" > "$WORK/m.conf"; '
               'exec mosquitto -c "$WORK/m.conf"']
MQTT_CLIENT = ["sh", "-c", ADDR_SH + 'P=${NC_PORT:-1883}; '
               'mosquitto_pub -h "$A" -p "$P" -q 1 -r -t sensors/t1 -m 21.5 && '
               'mosquitto_sub -h "$A" -p "$P" -t sensors/t1 -C 1 -W 5 && echo mqtt done']

# redis-server (no persistence) and redis-cli: PING, SET, GET, each on its own connection.
REDIS_SERVER = ["sh", "-c", ADDR_SH + 'exec redis-server --bind "$A" --port "${NC_PORT:-6379}" '
                '--save "" --appendonly no --protected-mode no --dir "$WORK"']
REDIS_CLIENT = ["sh", "-c", ADDR_SH + 'P=${NC_PORT:-6379}; redis-cli -h "$A" -p "$P" ping && '
                'redis-cli -h "$A" -p "$P" set greeting hello && '
                'redis-cli -h "$A" -p "$P" get greeting && echo redis done']

# chrony: the server serves its own clock (local stratum 8, -x: it never sets the host's);
# "chronyd -Q" takes a few samples of it (iburst) and exits without setting the clock.
NTP_SERVER = ["sh", "-c", ADDR_SH + 'printf "port ${NC_PORT:-123}\\nbindaddress $A\\nallow all\\n'
              'local stratum 8\\ncmdport 0\\npidfile $WORK/s.pid\\n" > "$WORK/c.conf"; '
              'exec chronyd -d -x -f "$WORK/c.conf"']
NTP_CLIENT = ["sh", "-c", ADDR_SH + 'timeout 15 chronyd -Q -t 10 "server $A port ${NC_PORT:-123} '
              'iburst maxsamples 4" "pidfile $WORK/q.pid" "cmdport 0" 2>&1; echo ntp done']

# PostgreSQL 15 (Debian): initdb (trust authentication) and postgres as the postgres user;
# psql without TLS runs two queries.
PG_SERVER = r"""
import glob, os, subprocess
w = os.environ["WORK"]; v6 = bool(os.environ.get("NC_V6"))
addr = os.environ["SERVER6" if v6 else "SERVER"]
b = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]; d = os.path.join(w, "pg")
subprocess.run(["chown", "postgres", w], check=True)
subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", f"{b}/initdb -A trust -D {d}"],
               check=True, stdout=subprocess.DEVNULL)
open(os.path.join(d, "pg_hba.conf"), "a").write("host all all 0.0.0.0/0 trust\nhost all all ::/0 trust\n")
os.execvp("su", ["su", "postgres", "-s", "/bin/sh", "-c",
                 f"exec {b}/postgres -D {d} -k {w} -c listen_addresses={addr} "
                 f"-p {os.environ.get('NC_PORT', '5432')}"])
"""
# (initdb takes a few seconds: the client waits, up to 15 s, for the server's Unix socket in
# WORK, which both namespaces see, so that no connection is tried before the server listens.)
PG_CLIENT = ["sh", "-c", ADDR_SH + 'for i in $(seq 60); do [ -S "$WORK/.s.PGSQL.${NC_PORT:-5432}" ] '
             '&& break; sleep 0.25; done; psql "host=$A port=${NC_PORT:-5432} user=postgres '
             'dbname=postgres sslmode=disable" -c "select 1" -c "select version()" '
             '&& echo pg done']


# git daemon serving a bare clone of a one-commit repository; git clone over git://.
GIT_SERVER = ["sh", "-c", ADDR_SH + 'G="git -c user.name=n -c user.email=n@example.org"; '
              'git init -q "$WORK/src" && $G -C "$WORK/src" commit -q --allow-empty -m init && '
              'git clone -q --bare "$WORK/src" "$WORK/r.git" && '
              'exec git daemon --reuseaddr --export-all --base-path="$WORK" --listen="$A" '
              '--port="${NC_PORT:-9418}" "$WORK"']
GIT_CLIENT = ["sh", "-c", RESOLVE_SH + 'git clone -q "git://$R:${NC_PORT:-9418}/r.git" '
              '"$WORK/c" && echo git done']

# rsync in daemon mode with one read-only module; the client copies it.
RSYNC_SERVER = ["sh", "-c", ADDR_SH + 'mkdir -p "$WORK/d" && seq 1000 > "$WORK/d/n.txt" && '
                'printf "[data]\\npath = $WORK/d\\nread only = yes\\nuse chroot = no\\n" '
                '> "$WORK/r.conf" && exec rsync --daemon --no-detach --config="$WORK/r.conf" '
                '--address="$A" --port="${NC_PORT:-873}"']
RSYNC_CLIENT = ["sh", "-c", RESOLVE_SH + 'rsync -a "rsync://$R:${NC_PORT:-873}/data/" '
                '"$WORK/out/" && echo rsync done']

# Net-SNMP's snmpd (community "public") and snmpget/snmpwalk, SNMPv2c over UDP.
SNMP_SERVER = ["sh", "-c", ADDR_SH + 'T=udp; C=rocommunity; X="$A"; [ -n "$NC_V6" ] && '
               '{ T=udp6; C=rocommunity6; X="[$A]"; }; '
               'printf "agentAddress $T:$X:${NC_PORT:-161}\\n$C public default\\n" '
               '> "$WORK/s.conf" && exec snmpd -f -Lo -C -c "$WORK/s.conf" '
               '-p "$WORK/s.pid"']
SNMP_CLIENT = ["sh", "-c", ADDR_SH + 'T=udp; X="$A"; [ -n "$NC_V6" ] && { T=udp6; X="[$A]"; }; '
               'snmpget -v2c -c public -On "$T:$X:${NC_PORT:-161}" .1.3.6.1.2.1.1.1.0 && '
               'snmpwalk -v2c -c public -On "$T:$X:${NC_PORT:-161}" .1.3.6.1.2.1.1 '
               '>/dev/null && echo snmp done']

# memcached (TCP only) and libmemcached's tools: a value stored (memccp) and read (memccat).
MEMCACHED_SERVER = ["sh", "-c", ADDR_SH + 'exec memcached -u nobody -U 0 -l "$A" '
                    '-p "${NC_PORT:-11211}"']
MEMCACHED_CLIENT = ["sh", "-c", RESOLVE_SH + 'cd "$WORK" && echo "held-out value" > note && '
                    'memccp --servers="$R:${NC_PORT:-11211}" note && '
                    'memccat --servers="$R:${NC_PORT:-11211}" note && echo memcached done']

# util-linux's logger sends RFC 5424 and RFC 3164 messages over UDP to a receiving socket
# (syslog has no answer: the server only has to exist so that no ICMP error comes back).
SYSLOG_SERVER = r"""
import os, socket
v6 = bool(os.environ.get("NC_V6"))
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((os.environ["SERVER6" if v6 else "SERVER"], int(os.environ.get("NC_PORT", "514"))))
while True:
    s.recv(4096)
"""
SYSLOG_CLIENT = ["sh", "-c", ADDR_SH + 'P=${NC_PORT:-514}; '
                 'logger -n "$A" -P "$P" -d --rfc5424 -t heldout "first message" && '
                 'logger -n "$A" -P "$P" -d --rfc3164 -t heldout -p local3.warning "second" && '
                 'logger -n "$A" -P "$P" -d -t heldout "third message" && echo syslog done']

# inetutils' telnetd, started per connection by socat as inetd would (no login: it runs
# /bin/sh), and inetutils' telnet, which negotiates its options, runs one command and leaves.
TELNET_SERVER = ["sh", "-c", ADDR_SH + 'F=TCP4; [ -n "$NC_V6" ] && F=TCP6; '
                 'exec socat "$F-LISTEN:${NC_PORT:-23},bind=$A,reuseaddr,fork" '
                 '"EXEC:/usr/sbin/telnetd -E /bin/sh"']
TELNET_CLIENT = ["sh", "-c", ADDR_SH + '(sleep 1; echo "echo hi"; sleep 1; echo exit; sleep 1) '
                 '| timeout 8 telnet "$A" "${NC_PORT:-23}"; echo telnet done']


# --- Scenarios added in the second round (more protocols; same NC_V6 / NC_PORT / NC_HOST) ---

# aioquic 1.7 (PyPI, pip into the python3 on PATH): an HTTP/3 server (self-signed EC
# certificate for NC_HOST) and a client that opens two QUIC v1 connections (SNI NC_HOST,
# ALPN h3), each with one GET answered 200.
QUIC_SERVER = r"""
import asyncio, os, subprocess
from aioquic.asyncio import serve, QuicConnectionProtocol
from aioquic.quic.configuration import QuicConfiguration
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import HeadersReceived
w = os.environ["WORK"]; host = os.environ.get("NC_HOST", "www.example.org")
v6 = bool(os.environ.get("NC_V6")); addr = os.environ["SERVER6" if v6 else "SERVER"]
k, c = os.path.join(w, "qk.pem"), os.path.join(w, "qc.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-days", "2", "-subj", "/CN=" + host, "-keyout", k, "-out", c],
               check=True, capture_output=True)
cfg = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN); cfg.load_cert_chain(c, k)
class P(QuicConnectionProtocol):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw); self.h3 = H3Connection(self._quic)
    def quic_event_received(self, ev):
        for e in self.h3.handle_event(ev):
            if isinstance(e, HeadersReceived):
                body = b"wirespeed held-out\n" * 20
                self.h3.send_headers(e.stream_id, [(b":status", b"200"),
                                     (b"content-length", str(len(body)).encode())])
                self.h3.send_data(e.stream_id, body, end_stream=True)
        self.transmit()
async def main():
    await serve(addr, int(os.environ.get("NC_PORT", "443")), configuration=cfg,
                create_protocol=P)
    await asyncio.get_running_loop().create_future()
asyncio.run(main())
"""
QUIC_CLIENT = r"""
import asyncio, os, ssl
from aioquic.asyncio import connect, QuicConnectionProtocol
from aioquic.quic.configuration import QuicConfiguration
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
host = os.environ.get("NC_HOST", "www.example.org")
v6 = bool(os.environ.get("NC_V6")); addr = os.environ["SERVER6" if v6 else "SERVER"]
class C(QuicConnectionProtocol):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw); self.h3 = H3Connection(self._quic); self.done = asyncio.Event()
    def quic_event_received(self, ev):
        for e in self.h3.handle_event(ev):
            if isinstance(e, (DataReceived, HeadersReceived)) and e.stream_ended:
                self.done.set()
async def get():
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name=host)
    cfg.verify_mode = ssl.CERT_NONE
    async with connect(addr, int(os.environ.get("NC_PORT", "443")), configuration=cfg,
                       create_protocol=C) as c:
        sid = c._quic.get_next_available_stream_id()
        c.h3.send_headers(sid, [(b":method", b"GET"), (b":scheme", b"https"),
                                (b":authority", host.encode()), (b":path", b"/"),
                                (b"user-agent", b"aioquic-heldout")], end_stream=True)
        c.transmit()
        await asyncio.wait_for(c.done.wait(), 10)
for _ in range(2):
    asyncio.run(get())
print("quic done")
"""


# MariaDB 10.11 (Debian mariadb-server, mariadb-client): a data directory made at start
# (mariadb-install-db), the server without grant tables (any user is let in, after the
# usual handshake and authentication exchange) and without TLS; the mariadb client runs two
# queries over TCP. (The client waits for the server's Unix socket in WORK, as psql does.)
MYSQL_SERVER = ["sh", "-c", ADDR_SH + 'mariadb-install-db --no-defaults --user=root '
                '--datadir="$WORK/db" --auth-root-authentication-method=normal >/dev/null && '
                'exec mariadbd --no-defaults --user=root --datadir="$WORK/db" '
                '--socket="$WORK/m.sock" --pid-file="$WORK/m.pid" --bind-address="$A" '
                '--port="${NC_PORT:-3306}" --skip-grant-tables --skip-ssl --log-error=/dev/null']
MYSQL_CLIENT = ["sh", "-c", ADDR_SH + 'for i in $(seq 80); do [ -S "$WORK/m.sock" ] && break; '
                'sleep 0.25; done; mariadb --no-defaults -h "$A" -P "${NC_PORT:-3306}" '
                '-u heldout --skip-ssl -e "select 1; select version()" && echo mysql done']


# OpenLDAP's slapd 2.5 (Debian slapd, ldap-utils) with an mdb database for dc=example,dc=org
# (slapd.conf made at start); ldapadd binds as its rootdn and adds two entries, then
# ldapsearch binds anonymously and searches the subtree: LDAPv3 over TCP, no TLS.
LDAP_SERVER = ["sh", "-c", ADDR_SH + 'U="ldap://$A:${NC_PORT:-389}/"; [ -n "$NC_V6" ] && '
               'U="ldap://[$A]:${NC_PORT:-389}/"; mkdir -p "$WORK/ldb" && '
               'printf "include /etc/ldap/schema/core.schema\\npidfile $WORK/slapd.pid\\n'
               'modulepath /usr/lib/ldap\\nmoduleload back_mdb\\ndatabase mdb\\n'
               'suffix dc=example,dc=org\\nrootdn cn=admin,dc=example,dc=org\\nrootpw secret\\n'
               'directory $WORK/ldb\\naccess to * by * read\\n" > "$WORK/slapd.conf" && '
               'exec slapd -d 0 -f "$WORK/slapd.conf" -h "$U"']
LDAP_CLIENT = ["sh", "-c", RESOLVE_SH + 'U="ldap://$R:${NC_PORT:-389}/"; '
               'printf "dn: dc=example,dc=org\\nobjectClass: dcObject\\nobjectClass: organization\\n'
               'o: Example\\ndc: example\\n\\ndn: cn=alice,dc=example,dc=org\\n'
               'objectClass: person\\ncn: alice\\nsn: Example\\n" > "$WORK/e.ldif" && '
               'ldapadd -x -H "$U" -D cn=admin,dc=example,dc=org -w secret -f "$WORK/e.ldif" && '
               'ldapsearch -x -LLL -H "$U" -b dc=example,dc=org "(cn=alice)" && echo ldap done']


# Samba 4.17's smbd (Debian samba, smbclient) as a standalone server with one guest share
# (smb.conf made at start, NetBIOS off, SMB over TCP directly on NC_PORT); smbclient logs in
# as a guest, negotiates SMB 3.1.1 and lists the share and gets a file.
SMB_CONF = r"""[global]
workgroup = HELDOUT
server role = standalone server
map to guest = Bad User
smb ports = {port}
interfaces = {addr}
bind interfaces only = yes
disable netbios = yes
load printers = no
printing = bsd
printcap name = /dev/null
private dir = {w}/smb/private
lock directory = {w}/smb/lock
state directory = {w}/smb/state
cache directory = {w}/smb/cache
pid directory = {w}/smb/run
ncalrpc dir = {w}/smb/ncalrpc
log file = {w}/smb/log
[pub]
path = {w}/share
guest ok = yes
read only = yes
"""
SMB_SERVER = r"""
import os
w = os.environ["WORK"]; v6 = bool(os.environ.get("NC_V6"))
for d in ("share", "smb/private", "smb/lock", "smb/state", "smb/cache", "smb/run"):
    os.makedirs(os.path.join(w, d), exist_ok=True)
os.chmod(w, 0o755); os.chmod(os.path.join(w, "share"), 0o755)
open(os.path.join(w, "share", "notes.txt"), "w").write("wirespeed smb test\n" * 40)
conf = os.path.join(w, "smb.conf")
open(conf, "w").write(CONF.format(w=w, port=os.environ.get("NC_PORT", "445"),
                                  addr=os.environ["SERVER6" if v6 else "SERVER"]))
os.execvp("smbd", ["smbd", "-F", "-s", conf])
""".replace("CONF", repr(SMB_CONF))
SMB_CLIENT = ["sh", "-c", ADDR_SH + 'cd "$WORK" && smbclient -N -I "$A" -p "${NC_PORT:-445}" '
              '//heldout/pub -c "ls; get notes.txt /dev/null" && echo smb done']


# SIPp 3.6 (Debian sip-tester) with its built-in scenarios over UDP: "uas" answers, "uac"
# places one call (INVITE, 180, 200, ACK, BYE, 200) from udp/40506 (sipp would take 5060,
# which would name the flow for a port rule even on the -alt and -swap variants).
SIP_SERVER = ["sh", "-c", ADDR_SH + 'exec sipp -sn uas -i "$A" -p "${NC_PORT:-5060}" -nostdin '
              '>/dev/null']
SIP_CLIENT = ["sh", "-c", RESOLVE_SH + 'L=$CLIENT; [ -n "$NC_V6" ] && L=$CLIENT6; '
              'timeout 20 sipp -sn uac "$R:${NC_PORT:-5060}" -i "$L" -p 40506 -m 1 -nostdin '
              '-timeout 15 >/dev/null && echo sip done']


# ngIRCd 26 (Debian ngircd; ngircd.conf made at start, no PAM, ident or DNS look-ups) and
# sic 1.1 (Debian sic, suckless' simple IRC client), fed its commands on standard input:
# registration (NICK, USER), JOIN #heldout, a PRIVMSG to the channel, QUIT.
IRC_SERVER = ["sh", "-c", ADDR_SH + 'printf "[Global]\\nName = irc.example.org\\n'
              'Info = heldout\\nListen = $A\\nPorts = ${NC_PORT:-6667}\\n'
              'PidFile = $WORK/ngircd.pid\\nMotdPhrase = wirespeed held-out\\n[Options]\\n'
              'PAM = no\\nIdent = no\\nDNS = no\\n" > "$WORK/ngircd.conf" && '
              'exec ngircd -n -f "$WORK/ngircd.conf"']
IRC_CLIENT = ["sh", "-c", ADDR_SH + '(sleep 1.5; echo ":j #heldout"; sleep 0.5; '
              'echo "hello from the held-out set"; sleep 0.5; echo ":QUIT :bye"; sleep 1) | '
              'timeout 10 sic -h "$A" -p "${NC_PORT:-6667}" -n alice; echo irc done']


# coturn 4.6 (Debian coturn) as a plain STUN server (no TURN relay, no TLS/DTLS, no
# configuration file) and its turnutils_stunclient, run twice (two flows): a Binding request
# over UDP, answered with the client's (XOR-)mapped address (RFC 5389). (Its -f, RFC 5780
# behaviour discovery, is refused by a server without a second address, and then hangs.)
STUN_SERVER = ["sh", "-c", ADDR_SH + 'exec turnserver -n --stun-only --no-tls --no-dtls '
               '--no-cli --listening-ip="$A" --listening-port="${NC_PORT:-3478}" '
               '--pidfile="$WORK/turn.pid" --log-file=stdout --simple-log']
STUN_CLIENT = ["sh", "-c", ADDR_SH + 'for i in 1 2; do timeout 10 turnutils_stunclient '
               '-p "${NC_PORT:-3478}" "$A" || exit 1; done; echo stun done']


# FreeRADIUS 3.2 (Debian freeradius, freeradius-utils) with a radiusd.conf of its own (made at
# start: the client's two addresses, shared secret testing123, the files and pap modules, one
# user); radclient sends an Access-Request with the right password (Access-Accept), then one
# with a wrong one (Access-Reject), each from its own socket.
RADIUS_CONF = r"""prefix = /usr
exec_prefix = /usr
sysconfdir = /etc
localstatedir = {w}
logdir = {w}
raddbdir = {w}
radacctdir = {w}
run_dir = {w}
libdir = /usr/lib/freeradius
pidfile = {w}/radiusd.pid
name = radiusd
max_request_time = 30
log {{
  destination = stdout
}}
client heldout {{
  ipaddr = {client}
  secret = testing123
}}
client heldout6 {{
  ipv6addr = {client6}
  secret = testing123
}}
modules {{
  pap {{
  }}
  files {{
    filename = {w}/users
  }}
}}
server default {{
  listen {{
    type = auth
    {fam} = {addr}
    port = {port}
  }}
  authorize {{
    files
    pap
  }}
  authenticate {{
    Auth-Type PAP {{
      pap
    }}
  }}
}}
"""
RADIUS_SERVER = r"""
import os
w = os.environ["WORK"]; v6 = bool(os.environ.get("NC_V6"))
open(os.path.join(w, "dictionary"), "w").close()
open(os.path.join(w, "users"), "w").write('alice Cleartext-Password := "secret"\n'
                                          '\tReply-Message := "hello alice"\n')
open(os.path.join(w, "radiusd.conf"), "w").write(CONF.format(
    w=w, client=os.environ["CLIENT"], client6=os.environ["CLIENT6"],
    fam="ipv6addr" if v6 else "ipaddr", addr=os.environ["SERVER6" if v6 else "SERVER"],
    port=os.environ.get("NC_PORT", "1812")))
os.execvp("freeradius", ["freeradius", "-f", "-l", "stdout", "-d", w, "-n", "radiusd"])
""".replace("CONF", repr(RADIUS_CONF))
RADIUS_CLIENT = ["sh", "-c", RESOLVE_SH + 'D="$R:${NC_PORT:-1812}"; '
                 'echo "User-Name=alice,User-Password=secret" | radclient -x "$D" auth testing123 '
                 '&& { echo "User-Name=alice,User-Password=wrong" | radclient -x "$D" auth '
                 'testing123; [ $? -eq 1 ]; } && echo radius done']


# Dante 1.4 (Debian dante-server) as a SOCKS server without authentication, and Python's
# http.server behind it in the server's namespace (the proxy's own connection to it stays on
# that namespace's loopback, so the capture holds the SOCKS connections alone); curl fetches
# the page twice through it, with SOCKS5 (method "no authentication", CONNECT to the address).
SOCKS_SERVER = ["sh", "-c", ADDR_SH + 'printf "logoutput: stderr\\ninternal: $A port = '
                '${NC_PORT:-1080}\\nexternal: $A\\nclientmethod: none\\nsocksmethod: none\\n'
                'user.privileged: root\\nuser.unprivileged: nobody\\n'
                'client pass {\\n from: 0/0 to: 0/0\\n}\\nsocks pass {\\n from: 0/0 to: 0/0\\n}\\n" '
                '> "$WORK/danted.conf" && cd "$WORK" && mkdir -p www && '
                'echo "<p>wirespeed held-out</p>" > www/index.html && '
                '{ /usr/bin/python3 -m http.server -d www -b "$A" 8080 >/dev/null 2>&1 & } && '
                'exec danted -f "$WORK/danted.conf" -p "$WORK/danted.pid"']
SOCKS_CLIENT = ["sh", "-c", RESOLVE_SH + 'for i in 1 2; do curl -sS -o /dev/null '
                '--socks5 "$R:${NC_PORT:-1080}" "http://$R:8080/index.html" || exit 1; done; '
                'echo socks done']


# OpenVPN 2.6 (Debian openvpn) point to point over UDP in TLS mode: a CA and the two ends'
# certificates (EC P-256, made with openssl at start), each end a tun device (198.51.100.1
# and .2); once the client logs "Initialization Sequence Completed" it pings the server's
# tunnel address three times through the tunnel (data channel, AES-256-GCM), then stops.
OVPN_SERVER = ["sh", "-c", ADDR_SH + 'cd "$WORK" && '
               'E="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2"; '
               'openssl req -x509 $E -subj /CN=heldout-ca -keyout ca.key -out ca.pem 2>/dev/null && '
               'for n in server client; do openssl req $E -subj "/CN=$n" -keyout $n.key '
               '-out $n.csr 2>/dev/null && openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key '
               '-CAcreateserial -days 2 -out $n.pem 2>/dev/null || exit 1; done; touch pki.done; '
               'U=udp; [ -n "$NC_V6" ] && U=udp6; '
               'exec openvpn --dev tun --proto $U --local "$A" --port "${NC_PORT:-1194}" '
               '--tls-server --ca ca.pem --cert server.pem --key server.key --dh none '
               '--ifconfig 198.51.100.1 198.51.100.2 --verb 1']
OVPN_CLIENT = ["sh", "-c", ADDR_SH + 'cd "$WORK" && for i in $(seq 40); do [ -e pki.done ] && '
               'break; sleep 0.25; done; U=udp; [ -n "$NC_V6" ] && U=udp6; '
               'openvpn --dev tun --proto $U --remote "$A" "${NC_PORT:-1194}" --nobind '
               '--tls-client --ca ca.pem --cert client.pem --key client.key '
               '--ifconfig 198.51.100.2 198.51.100.1 --verb 1 --log c.log --writepid c.pid & '
               'for i in $(seq 60); do grep -q "Initialization Sequence Completed" c.log 2>/dev/null '
               '&& break; sleep 0.25; done; ping -c 3 -i 0.3 -W 2 198.51.100.1; r=$?; '
               'kill $(cat c.pid); wait; [ $r -eq 0 ] && echo openvpn done']


# WireGuard with the userspace wireguard-go (Debian wireguard-go; this kernel has no wireguard
# module) and wg (Debian wireguard-tools): a key pair for each end made at start, the server's
# interface listening on NC_PORT (198.51.100.1), the client's (198.51.100.2) with the server as
# its endpoint; the client's three pings through the tunnel start the handshake (initiation,
# response), then transport data. (Their UAPI sockets in /var/run/wireguard are named by the
# interface, hence two names; the server's shell stops its wireguard-go on SIGTERM, so that
# the socket is removed before netcap kills what is left in the namespace.)
WG_SERVER = ["sh", "-c", ADDR_SH + 'cd "$WORK" && umask 077 && for n in s c; do wg genkey > $n.key '
             '&& wg pubkey < $n.key > $n.pub || exit 1; done; '
             'WG_PROCESS_FOREGROUND=1 wireguard-go wgsrv0 & G=$!; '
             'trap "kill \\$G; wait; exit 0" TERM; '
             'for i in $(seq 40); do ip link show wgsrv0 >/dev/null 2>&1 && break; sleep 0.1; done; '
             'wg set wgsrv0 listen-port "${NC_PORT:-51820}" private-key s.key '
             'peer "$(cat c.pub)" allowed-ips 198.51.100.2/32 && '
             'ip addr add 198.51.100.1/24 dev wgsrv0 && ip link set wgsrv0 up && touch wg.ready; '
             'wait']
WG_CLIENT = ["sh", "-c", RESOLVE_SH + 'cd "$WORK" && for i in $(seq 40); do [ -e wg.ready ] && '
             'break; sleep 0.25; done; WG_PROCESS_FOREGROUND=1 wireguard-go wgcli0 & G=$!; '
             'for i in $(seq 40); do ip link show wgcli0 >/dev/null 2>&1 && break; sleep 0.1; done; '
             'wg set wgcli0 private-key c.key peer "$(cat s.pub)" allowed-ips 198.51.100.0/24 '
             'endpoint "$R:${NC_PORT:-51820}" && ip addr add 198.51.100.2/24 dev wgcli0 && '
             'ip link set wgcli0 up && ping -c 3 -i 0.3 -W 3 198.51.100.1; r=$?; '
             'kill $G; wait; [ $r -eq 0 ] && echo wireguard done']


# pymodbus 3.16 (PyPI, pip into the python3 on PATH): a Modbus/TCP server (unit 1, 100
# holding registers, coils) and its synchronous client: read holding registers (function 3),
# write a register (6), read it back, read coils (1), on one connection.
MODBUS_SERVER = r"""
import os
from pymodbus.datastore import ModbusDeviceContext, ModbusServerContext, ModbusSequentialDataBlock
from pymodbus.server import StartTcpServer
v6 = bool(os.environ.get("NC_V6"))
dev = ModbusDeviceContext(hr=ModbusSequentialDataBlock(1, list(range(100))),
                          co=ModbusSequentialDataBlock(1, [True, False] * 50))
StartTcpServer(ModbusServerContext(devices=dev, single=True),
               address=(os.environ["SERVER6" if v6 else "SERVER"], int(os.environ.get("NC_PORT", "502"))))
"""
MODBUS_CLIENT = r"""
import os
from pymodbus.client import ModbusTcpClient
v6 = bool(os.environ.get("NC_V6"))
c = ModbusTcpClient(os.environ["SERVER6" if v6 else "SERVER"], port=int(os.environ.get("NC_PORT", "502")))
assert c.connect()
r = c.read_holding_registers(0, count=8, device_id=1); assert not r.isError(), r
assert not c.write_register(5, 1234, device_id=1).isError()
r = c.read_holding_registers(5, count=1, device_id=1); assert r.registers == [1234], r
assert not c.read_coils(0, count=16, device_id=1).isError()
c.close()
print("modbus done")
"""


# TigerVNC 1.12's X server (Debian tigervnc-standalone-server: Xtigervnc, display :47, no X11
# over TCP) serving RFB on NC_PORT without authentication (security type None), and vncdotool
# 1.4 (PyPI, pip into the python3 on PATH) as the client: RFB 3.8 handshake, a framebuffer
# update request, a screenshot written to WORK, a key press, disconnect.
VNC_SERVER = ["sh", "-c", ADDR_SH + 'exec Xtigervnc :47 -rfbport "${NC_PORT:-5900}" '
              '-interface "$A" -SecurityTypes None -geometry 320x200 -depth 24 -nolisten tcp '
              '-AlwaysShared']
VNC_CLIENT = ["sh", "-c", RESOLVE_SH + 'timeout 20 ' + PYENV + ' -m vncdotool.command '
              '-s "$R::${NC_PORT:-5900}" capture "$WORK/screen.png" key a && '
              '[ -s "$WORK/screen.png" ] && echo vnc done']


# dnsmasq (Debian dnsmasq-base) as a DHCP server only (no DNS: --port=0) handing out
# 192.0.2.100-150, and BusyBox's udhcpc (Debian udhcpc) on the client's interface: DISCOVER
# and REQUEST broadcast from 0.0.0.0:68 to 255.255.255.255:67, OFFER and ACK from the
# server's port 67; its script is /bin/true, so the lease is not applied. Ports 67 and 68 are
# the protocol's own, hence one variant.
DHCP_SERVER = ["sh", "-c", 'exec dnsmasq --no-daemon --port=0 --no-resolv --no-hosts '
               '--dhcp-range=192.0.2.100,192.0.2.150,255.255.255.0,1h --dhcp-authoritative '
               '--dhcp-leasefile="$WORK/leases" --log-dhcp --log-facility=-']
DHCP_CLIENT = ["sh", "-c", 'I=$(ls /sys/class/net | grep -v "^lo$" | head -1); '
               'timeout 20 udhcpc -i "$I" -f -q -n -t 3 -T 2 -s /bin/true -x hostname:heldout '
               '&& echo dhcp done']


# --- Fourth round (seventeenth session): Debian's own daemons and clients, and two PyPI
# libraries, for protocols the held-out set lacked (BitTorrent, Kerberos, NATS, BGP, collectd,
# DNS over TLS, NetBIOS name service, mDNS). Debian packages: python3-libtorrent, krb5-kdc,
# krb5-user, nats-server, bird2, collectd-core, unbound, knot-dnsutils, samba (nmbd),
# samba-common-bin (nmblookup); PyPI: nats-py, zeroconf (the python3 on PATH). Each reads
# ADDR_SH's NC_V6 and NC_PORT where it says so.

# libtorrent 2.0 (Debian's binding): the server makes a 1 MiB torrent and seeds it, the client
# downloads it from that one peer. Local discovery, UPnP and NAT-PMP off, encryption off (plain
# BitTorrent handshakes); NC_UTP set: uTP over UDP only, else TCP only; the DHT off unless
# NC_DHT is set: then both run a DHT node and the leecher asks the seeder's for the torrent's
# peers (KRPC over UDP).
BT_COMMON = r"""
import libtorrent as lt, os, sys, time
w = os.environ["WORK"]; v6 = bool(os.environ.get("NC_V6")); utp = bool(os.environ.get("NC_UTP"))
srv = os.environ["SERVER6" if v6 else "SERVER"]
cli = os.environ["CLIENT6" if v6 else "CLIENT"]
port = int(os.environ.get("NC_PORT", "6881"))
def br(a):
    return f"[{a}]" if ":" in a else a
dht = bool(os.environ.get("NC_DHT"))
def session(listen):
    return lt.session({"listen_interfaces": listen, "enable_dht": dht, "enable_lsd": False,
                       "dht_bootstrap_nodes": f"{br(srv)}:{port}" if dht else "",
                       "enable_upnp": False, "enable_natpmp": False, "out_enc_policy": 2,
                       "in_enc_policy": 2, "enable_outgoing_utp": utp,
                       "enable_incoming_utp": utp, "enable_outgoing_tcp": not utp,
                       "enable_incoming_tcp": not utp})
"""
BT_SERVER = BT_COMMON + r"""
os.makedirs(w + "/seed", exist_ok=True)
with open(w + "/seed/held-out.bin", "wb") as f:
    f.write(bytes(range(256)) * 4096)
fs = lt.file_storage(); lt.add_files(fs, w + "/seed/held-out.bin")
t = lt.create_torrent(fs, 65536); lt.set_piece_hashes(t, w + "/seed")
data = lt.bencode(t.generate())
s = session(f"{br(srv)}:{port}")
s.add_torrent({"ti": lt.torrent_info(lt.bdecode(data)), "save_path": w + "/seed"})
open(w + "/t.part", "wb").write(data); os.rename(w + "/t.part", w + "/t.torrent")
time.sleep(60)
"""
BT_CLIENT = BT_COMMON + r"""
for _ in range(100):
    if os.path.exists(w + "/t.torrent"):
        break
    time.sleep(0.1)
s = session(f"{br(cli)}:0")
h = s.add_torrent({"ti": lt.torrent_info(w + "/t.torrent"), "save_path": w + "/leech"})
if dht:
    # the seeder's DHT node is the only one: ask it for the torrent's peers, then fetch
    s.add_dht_node((srv, port))
    s.dht_get_peers(h.status().info_hashes.v1)
h.connect_peer((srv, port))
for _ in range(300):
    if h.status().is_seeding:
        print("bittorrent done"); sys.exit(0)
    time.sleep(0.1)
sys.exit("bittorrent: not downloaded, progress %.2f" % h.status().progress)
"""

# MIT Kerberos: a KDC for EXAMPLE.ORG made at start (kdb5_util, kadmin.local), kinit with a
# password (AS-REQ, the pre-authentication error, AS-REQ again) and kvno (TGS-REQ). UDP unless
# NC_TCP is set (udp_preference_limit 1: every request over TCP).
KRB_SERVER = ["sh", "-c", ADDR_SH + 'cd "$WORK" && P=${NC_PORT:-88}; K="$A"; '
              '[ -n "$NC_V6" ] && K="[$A]"; '
              'printf "[libdefaults]\\n default_realm = EXAMPLE.ORG\\n dns_lookup_kdc = false\\n'
              ' rdns = false\\n${NC_TCP:+ udp_preference_limit = 1\\n}[realms]\\n EXAMPLE.ORG = '
              '{\\n  kdc = $K:$P\\n }\\n" > krb5.conf; '
              'printf "[kdcdefaults]\\n kdc_ports = $P\\n kdc_tcp_ports = $P\\n[realms]\\n'
              ' EXAMPLE.ORG = {\\n  database_name = $WORK/principal\\n  key_stash_file = '
              '$WORK/stash\\n }\\n" > kdc.conf; '
              'export KRB5_CONFIG="$WORK/krb5.conf" KRB5_KDC_PROFILE="$WORK/kdc.conf"; '
              'kdb5_util create -s -P heldout-master -r EXAMPLE.ORG >/dev/null && '
              'kadmin.local -q "addprinc -pw heldout-pw alice" >/dev/null && '
              'kadmin.local -q "addprinc -randkey host/server.example.org" >/dev/null && '
              'touch kdc.ready && exec krb5kdc -n']
KRB_CLIENT = ["sh", "-c", 'cd "$WORK" && for i in $(seq 50); do [ -e kdc.ready ] && break; '
              'sleep 0.2; done; export KRB5_CONFIG="$WORK/krb5.conf" KRB5CCNAME="FILE:$WORK/cc"; '
              'echo heldout-pw | kinit alice >/dev/null && kvno host/server.example.org && '
              'echo kerberos done']

# nats-server and nats-py: a subscription, two messages published, both received.
NATS_SERVER = ["sh", "-c", ADDR_SH + 'exec nats-server -a "$A" -p "${NC_PORT:-4222}"']
NATS_CLIENT = r"""
import asyncio, os
import nats
v6 = bool(os.environ.get("NC_V6"))
a = os.environ["SERVER6" if v6 else "SERVER"]
url = f"nats://{'[' + a + ']' if v6 else a}:{os.environ.get('NC_PORT', '4222')}"
async def main():
    nc = await nats.connect(url)
    got = []
    sub = await nc.subscribe("held.out")
    for i in range(2):
        await nc.publish("held.out", b"message %d" % i)
    for i in range(2):
        got.append((await sub.next_msg(timeout=5)).data)
    await nc.drain()
    print("nats done", got)
asyncio.run(main())
"""

# BIRD 2 on both ends: an eBGP session (AS 64502 passive on the server, AS 64501 on the
# client), one static route exported each way; the client stops once the session is up and
# has exchanged updates.
BIRD_CONF = ('router id %s;\\nprotocol device {}\\nprotocol static { ipv4; route %s blackhole; }\\n'
             'protocol bgp peer { local %s as %s; neighbor %s as %s; %s'
             'ipv4 { import all; export all; }; }\\n')
BGP_SERVER = ["sh", "-c", 'cd "$WORK" && printf "' + BIRD_CONF % (
    "$SERVER", "203.0.113.0/24", "$SERVER", "64502", "$CLIENT", "64501", "passive on; ")
    + '" > s.conf && exec bird -f -c s.conf -s s.ctl -P s.pid']
BGP_CLIENT = ["sh", "-c", 'cd "$WORK" && printf "' + BIRD_CONF % (
    "$CLIENT", "198.51.100.0/24", "$CLIENT", "64501", "$SERVER", "64502", "")
    + '" > c.conf && { bird -f -c c.conf -s c.ctl -P c.pid & B=$!; }; '
    'ok=; for i in $(seq 60); do birdc -s c.ctl show route 2>/dev/null | grep -q 203.0.113.0 '
    '&& ok=1 && break; sleep 0.25; done; sleep 1; kill $B; [ -n "$ok" ] && echo bgp done']

# collectd's network plugin: the client's collectd sends its load every second to a server
# collectd listening on udp/25826 (binary protocol, unsigned).
COLLECTD_CONF = ('Hostname \\"%s\\"\\nFQDNLookup false\\nInterval 1\\nBaseDir \\"$WORK/%s\\"\\n'
                 'PIDFile \\"$WORK/%s.pid\\"\\nTypesDB \\"/usr/share/collectd/types.db\\"\\n'
                 'LoadPlugin network\\n%s<Plugin network>\\n  %s \\"%s\\" \\"25826\\"\\n'
                 '</Plugin>\\n')
COLLECTD_SERVER = ["sh", "-c", 'cd "$WORK" && mkdir -p s && printf "' + COLLECTD_CONF % (
    "server", "s", "s", "", "Listen", "$SERVER") + '" > s.conf && exec collectd -f -C s.conf']
COLLECTD_CLIENT = ["sh", "-c", 'cd "$WORK" && mkdir -p c && printf "' + COLLECTD_CONF % (
    "client", "c", "c", "LoadPlugin load\\n", "Server", "$SERVER")
    + '" > c.conf && { timeout 4 collectd -f -C c.conf; [ $? = 124 ]; } && echo collectd done']

# DNS over TLS (RFC 7858): unbound answering for example.org on tcp/853 with a self-signed
# certificate; knot's kdig asks twice, once with the name as SNI.
DOT_SERVER = ["sh", "-c", ADDR_SH + 'cd "$WORK" && P=${NC_PORT:-853}; '
              'openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=dns.example.org" '
              '-keyout k.pem -out c.pem 2>/dev/null; '
              'printf "server:\\n interface: $A@$P\\n tls-port: $P\\n tls-service-key: $WORK/k.pem\\n'
              ' tls-service-pem: $WORK/c.pem\\n access-control: 0.0.0.0/0 allow\\n'
              ' access-control: ::/0 allow\\n do-daemonize: no\\n username: \\"\\"\\n chroot: \\"\\"\\n'
              ' directory: \\"$WORK\\"\\n pidfile: \\"$WORK/u.pid\\"\\n use-syslog: no\\n'
              ' num-threads: 1\\n module-config: \\"iterator\\"\\n'
              ' local-zone: \\"example.org.\\" static\\n'
              ' local-data: \\"www.example.org. A 192.0.2.80\\"\\n'
              'remote-control:\\n control-enable: no\\n" > u.conf && exec unbound -d -c u.conf']
DOT_CLIENT = ["sh", "-c", ADDR_SH + 'P=${NC_PORT:-853}; '
              'kdig +tls -p "$P" "@$A" www.example.org A | grep -q 192.0.2.80 && '
              'kdig +tls-sni=dns.example.org -p "$P" "@$A" www.example.org A '
              '| grep -q 192.0.2.80 && echo dot done']

# Samba's nmbd as a NetBIOS name server for the name HELDOUT; nmblookup asks it by unicast
# (-U) and by the subnet's broadcast (-B), and asks for its node status (-A).
NBNS_SERVER = ["sh", "-c", 'cd "$WORK" && printf "[global]\\n netbios name = HELDOUT\\n'
               ' workgroup = WG\\n interfaces = $SERVER/24\\n bind interfaces only = yes\\n'
               ' lock directory = $WORK\\n state directory = $WORK\\n cache directory = $WORK\\n'
               ' pid directory = $WORK\\n private dir = $WORK\\n log file = $WORK/nmbd.log\\n'
               ' disable netbios = no\\n" > smb.conf && '
               'exec nmbd -F --no-process-group -s smb.conf']
NBNS_CLIENT = ["sh", "-c", 'cd "$WORK" && printf "[global]\\n interfaces = $CLIENT/24\\n'
               ' bind interfaces only = yes\\n" > c.conf && '
               'nmblookup -s c.conf -U "$SERVER" HELDOUT | grep -q "$SERVER" && '
               'nmblookup -s c.conf -B 192.0.2.255 HELDOUT | grep -q "$SERVER" && '
               'nmblookup -s c.conf -A "$SERVER" | grep -q HELDOUT && echo nbns done']

# python-zeroconf: the server announces an HTTP service, the client browses for it and asks
# for its details (queries and answers to 224.0.0.251:5353).
MDNS_SERVER = r"""
import os, socket, time
from zeroconf import IPVersion, ServiceInfo, Zeroconf
a = os.environ["SERVER"]
zc = Zeroconf(interfaces=[a], ip_version=IPVersion.V4Only)
zc.register_service(ServiceInfo("_http._tcp.local.", "held-out._http._tcp.local.",
                                addresses=[socket.inet_aton(a)], port=8080,
                                properties={"path": "/"}, server="heldout.local."))
time.sleep(60)
"""
MDNS_CLIENT = r"""
import os, sys
from zeroconf import IPVersion, Zeroconf
zc = Zeroconf(interfaces=[os.environ["CLIENT"]], ip_version=IPVersion.V4Only)
info = zc.get_service_info("_http._tcp.local.", "held-out._http._tcp.local.", timeout=8000)
zc.close()
if info is None:
    sys.exit("mdns: no answer")
print("mdns done", info.parsed_addresses(), info.port)
"""


# Fifth round (the same session): ping (iputils), a Zabbix agent (zabbix_agentd) asked by
# zabbix_utils' Getter (PyPI, Zabbix's own library), and SSDP (ssdpy, PyPI: a server
# answering an M-SEARCH). Debian packages: iputils-ping, zabbix-agent; PyPI: zabbix_utils,
# ssdpy.
PING_CLIENT = ["sh", "-c", 'ping -c 3 -i 0.2 "$SERVER" && echo ping done']

ZABBIX_SERVER = ["sh", "-c", ADDR_SH + 'cd "$WORK" && printf "ListenIP=$A\\nListenPort='
                 '${NC_PORT:-10050}\\nServer=$CLIENT,$CLIENT6\\nLogType=console\\n'
                 'PidFile=$WORK/z.pid\\nAllowRoot=1\\nStartAgents=2\\n" > z.conf && '
                 'exec zabbix_agentd -f -c z.conf']
ZABBIX_CLIENT = r"""
import os
from zabbix_utils import Getter
v6 = bool(os.environ.get("NC_V6"))
g = Getter(host=os.environ["SERVER6" if v6 else "SERVER"],
           port=int(os.environ.get("NC_PORT", "10050")), use_ipv6=v6)
ping, uname = g.get("agent.ping"), g.get("system.uname")
assert ping.value == "1", ping.value
print("zabbix done", uname.value[:40])
"""

# ssdpy: a root device announced from the server; the client's M-SEARCH (to
# 239.255.255.250:1900) and the server's unicast answer. No default route in the namespaces:
# multicast goes out of the veth by a route each side adds.
SSDP_ROUTE = r"""
import os, subprocess
dev = [d for d in os.listdir("/sys/class/net") if d != "lo"][0]
subprocess.run(["ip", "route", "add", "224.0.0.0/4", "dev", dev], check=True)
"""
SSDP_SERVER = SSDP_ROUTE + r"""
from ssdpy import SSDPServer
SSDPServer("uuid:0b1d0e5e-4e1d-4a11-9e1d-0000held0out", device_type="upnp:rootdevice",
           location="http://192.0.2.2:8080/desc.xml", address=os.environ["SERVER"]).serve_forever()
"""
SSDP_CLIENT = SSDP_ROUTE + r"""
import sys
from ssdpy import SSDPClient
found = SSDPClient(timeout=3).m_search("ssdp:all")
if not any("held0out" in str(d) for d in found):
    sys.exit(f"ssdp: no answer ({found})")
print("ssdp done", len(found))
"""


# DNS over QUIC (RFC 9250) with aioquic and dnslib (PyPI): the server answers A queries for
# example.org names on udp/853 (ALPN doq); the client asks twice on one connection, each
# query on its own stream with a two-byte length prefix (§4.2).
DOQ_SERVER = r"""
import asyncio, os, subprocess
from aioquic.asyncio import serve, QuicConnectionProtocol
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import StreamDataReceived
from dnslib import DNSRecord, RR, A
w = os.environ["WORK"]; v6 = bool(os.environ.get("NC_V6"))
addr = os.environ["SERVER6" if v6 else "SERVER"]
k, c = os.path.join(w, "qk.pem"), os.path.join(w, "qc.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-days", "2", "-subj", "/CN=dns.example.org", "-keyout", k, "-out", c],
               check=True, capture_output=True)
cfg = QuicConfiguration(is_client=False, alpn_protocols=["doq"]); cfg.load_cert_chain(c, k)
class P(QuicConnectionProtocol):
    def quic_event_received(self, ev):
        if isinstance(ev, StreamDataReceived) and ev.end_stream:
            q = DNSRecord.parse(ev.data[2:])
            a = q.reply(); a.add_answer(RR(q.q.qname, rdata=A("192.0.2.80"), ttl=60))
            out = a.pack()
            self._quic.send_stream_data(ev.stream_id, len(out).to_bytes(2, "big") + out,
                                        end_stream=True)
            self.transmit()
async def main():
    await serve(addr, int(os.environ.get("NC_PORT", "853")), configuration=cfg,
                create_protocol=P)
    await asyncio.get_running_loop().create_future()
asyncio.run(main())
"""
DOQ_CLIENT = r"""
import asyncio, os, ssl
from aioquic.asyncio import connect, QuicConnectionProtocol
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import StreamDataReceived
from dnslib import DNSRecord
v6 = bool(os.environ.get("NC_V6")); addr = os.environ["SERVER6" if v6 else "SERVER"]
class C(QuicConnectionProtocol):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw); self.got = {}; self.ev = asyncio.Event()
    def quic_event_received(self, ev):
        if isinstance(ev, StreamDataReceived) and ev.end_stream:
            self.got[ev.stream_id] = DNSRecord.parse(ev.data[2:]); self.ev.set()
async def ask(c, name):
    c.ev.clear()
    q = DNSRecord.question(name, "A"); q.header.id = 0  # RFC 9250 4.2.1: ID 0
    sid = c._quic.get_next_available_stream_id()
    b = q.pack(); c._quic.send_stream_data(sid, len(b).to_bytes(2, "big") + b, end_stream=True)
    c.transmit()
    while sid not in c.got:
        await asyncio.wait_for(c.ev.wait(), 10); c.ev.clear()
    return c.got[sid]
async def main():
    cfg = QuicConfiguration(is_client=True, alpn_protocols=["doq"], server_name="dns.example.org")
    cfg.verify_mode = ssl.CERT_NONE
    async with connect(addr, int(os.environ.get("NC_PORT", "853")), configuration=cfg,
                       create_protocol=C) as c:
        for n in ("www.example.org", "mail.example.org"):
            r = await ask(c, n)
            assert "192.0.2.80" in str(r.rr[0].rdata), r
    print("doq done")
asyncio.run(main())
"""


# Sixth round (the same session): SNMP traps and an inform (net-snmp's snmptrap and
# snmpinform to snmptrapd on udp/162), PTP (linuxptp: two ptp4l over UDP/IPv4 with software
# timestamps, the server a grandmaster (linuxptp 3.1's masterOnly), the client slaveOnly:
# multicast to 224.0.1.129:319/320), and an HTTP proxy (tinyproxy on tcp/8080, curl through
# it). Debian packages: snmptrapd, snmp, linuxptp, tinyproxy, curl.
TRAP_SERVER = ["sh", "-c", 'cd "$WORK" && printf "disableAuthorization yes\\n" > t.conf && '
               'exec snmptrapd -f -Lo -C -c t.conf "udp:$SERVER:162"']
TRAP_CLIENT = ["sh", "-c", 'snmptrap -v 2c -c public "$SERVER:162" "" 1.3.6.1.6.3.1.1.5.1 && '
               'snmpinform -v 2c -c public "$SERVER:162" "" 1.3.6.1.6.3.1.1.5.3 '
               '1.3.6.1.2.1.2.2.1.1.1 i 1 && echo snmptrap done']

PTP_SH = ('cd "$WORK" && I=$(ls /sys/class/net | grep -v "^lo$" | head -1); '
          'printf "[global]\\nnetwork_transport UDPv4\\ntime_stamping software\\n'
          'summary_interval -4\\nlogSyncInterval -2\\nlogAnnounceInterval -2\\n%s" > %s.conf; ')
PTP_SERVER = ["sh", "-c", PTP_SH % ("priority1 1\\nmasterOnly 1\\n", "s")
              + 'exec ptp4l -i "$I" -f s.conf -m -q']
PTP_CLIENT = ["sh", "-c", PTP_SH % ("slaveOnly 1\\n", "c")
              + 'timeout 8 ptp4l -i "$I" -f c.conf -m -q > c.log 2>&1; '
              'grep -q "master offset\\|new foreign master\\|selected best master" c.log '
              '&& echo ptp done || { cat c.log; exit 1; }']

PROXY_SERVER = ["sh", "-c", 'cd "$WORK" && printf "Port ${NC_PORT:-8080}\\nListen $SERVER\\n'
                'Allow 192.0.2.0/24\\nLogLevel Info\\n" > p.conf && '
                'python3 -m http.server 80 --bind "$SERVER" --directory "$WORK" '
                '>/dev/null 2>&1 & exec tinyproxy -d -c "$WORK/p.conf"']
PROXY_CLIENT = ["sh", "-c", 'for i in 1 2; do curl -sS -o /dev/null -x '
                '"http://$SERVER:${NC_PORT:-8080}" "http://$SERVER/" || exit 1; done; '
                'echo proxy done']


# Seventh round: OSPFv2 between two BIRDs (hellos and the adjacency's exchange, IP protocol 89
# to 224.0.0.5 and between the routers), and VRRP v3 (keepalived on both ends, the server the
# higher priority: its advertisements to 224.0.0.18, IP protocol 112). Debian: bird2,
# keepalived.
OSPF_CONF = ('router id %s;\\nprotocol device {}\\nprotocol direct { ipv4; }\\n'
             'protocol ospf v2 { ipv4 { import all; export all; }; area 0 { interface \\"$I\\" '
             '{ type broadcast; hello 1; dead 4; }; }; }\\n')
IFACE_SH = 'I=$(ls /sys/class/net | grep -v "^lo$" | head -1); '
OSPF_SERVER = ["sh", "-c", IFACE_SH + 'cd "$WORK" && printf "' + OSPF_CONF % "$SERVER"
               + '" > s.conf && exec bird -f -c s.conf -s s.ctl -P s.pid']
OSPF_CLIENT = ["sh", "-c", IFACE_SH + 'cd "$WORK" && printf "' + OSPF_CONF % "$CLIENT"
               + '" > c.conf && { bird -f -c c.conf -s c.ctl -P c.pid & B=$!; }; '
               'ok=; for i in $(seq 60); do birdc -s c.ctl show ospf neighbors 2>/dev/null '
               '| grep -q Full && ok=1 && break; sleep 0.25; done; sleep 1; kill $B; '
               '[ -n "$ok" ] && echo ospf done']

VRRP_CONF = ('global_defs {\\n  script_user root\\n}\\nvrrp_instance V {\\n  state %s\\n'
             '  interface $I\\n  virtual_router_id 51\\n  priority %s\\n  advert_int 1\\n'
             '  virtual_ipaddress {\\n    192.0.2.100/24\\n  }\\n}\\n')
VRRP_SERVER = ["sh", "-c", IFACE_SH + 'cd "$WORK" && printf "' + VRRP_CONF % ("MASTER", "150")
               + '" > s.conf && exec keepalived -n -l -D -f s.conf -p s.pid -r s.vpid']
VRRP_CLIENT = ["sh", "-c", IFACE_SH + 'cd "$WORK" && printf "' + VRRP_CONF % ("BACKUP", "100")
               + '" > c.conf && timeout 5 keepalived -n -l -D -f c.conf -p c.pid -r c.vpid '
               '>/dev/null 2>&1; echo vrrp done']


# Eighth round: industrial and messaging libraries from PyPI (pyzmq, python-snap7, cpppo, c104),
# media over ffmpeg's own RTSP and RTMP servers (`-rtsp_flags listen`, `-listen 1`), NetFlow
# and IPFIX from softflowd, WS-Discovery from wsdd, a tinc VPN and strongSwan's IKEv2. Debian:
# ffmpeg, softflowd, nfdump, wsdd, tinc, strongswan-charon, strongswan-swanctl; PyPI: pyzmq,
# python-snap7, cpppo, c104.
ZMQ_SERVER = r"""
import os, zmq
v6 = bool(os.environ.get("NC_V6"))
a = os.environ["SERVER6" if v6 else "SERVER"]
s = zmq.Context().socket(zmq.REP)
s.setsockopt(zmq.IPV6, v6)
s.bind(f"tcp://{'[' + a + ']' if v6 else a}:{os.environ.get('NC_PORT', '5555')}")
while True:
    s.send(b"re: " + s.recv())
"""
ZMQ_CLIENT = r"""
import os, zmq
v6 = bool(os.environ.get("NC_V6"))
a = os.environ["SERVER6" if v6 else "SERVER"]
s = zmq.Context().socket(zmq.REQ)
s.setsockopt(zmq.IPV6, v6)
s.setsockopt(zmq.RCVTIMEO, 5000)
s.setsockopt(zmq.LINGER, 0)
s.connect(f"tcp://{'[' + a + ']' if v6 else a}:{os.environ.get('NC_PORT', '5555')}")
for i in range(2):
    s.send(b"held out %d" % i)
    assert s.recv() == b"re: held out %d" % i
print("zeromq done")
"""

# A Siemens S7 server (Snap7's, a data block of 16 bytes) and its client: the ISO-on-TCP
# connection (TPKT, COTP), S7's setup, a write and a read of the block.
S7_SERVER = r"""
import os, time, ctypes, snap7
from snap7.type import SrvArea
srv = snap7.server.Server()
db = (ctypes.c_ubyte * 16)()
srv.register_area(SrvArea.DB, 1, db)
srv.start(tcp_port=int(os.environ.get("NC_PORT", "102")))
while True:
    time.sleep(1)
"""
S7_CLIENT = r"""
import os, snap7
c = snap7.client.Client()
c.connect(os.environ["SERVER"], 0, 1, int(os.environ.get("NC_PORT", "102")))
c.db_write(1, 0, bytearray(b"held"))
assert bytes(c.db_read(1, 0, 4)) == b"held"
c.disconnect()
print("s7comm done")
"""

# cpppo's EtherNet/IP (CIP) simulator with one tag; its client reads and writes the tag
# (RegisterSession, then SendRRData with the CIP requests).
ENIP_SERVER = ["sh", "-c", 'exec python3 -m cpppo.server.enip --address '
               '"$SERVER:${NC_PORT:-44818}" "Held=INT[4]"']
ENIP_CLIENT = ["sh", "-c", 'python3 -m cpppo.server.enip.client --address '
               '"$SERVER:${NC_PORT:-44818}" "Held[0-3]=(INT)1,2,3,4" "Held[0-3]" '
               '&& echo enip done']

# IEC 60870-5-104 with c104 (lib60870): a station with one measured value; the client's
# STARTDT, general interrogation and a read, then its close.
IEC104_SERVER = r"""
import os, time, c104
srv = c104.Server(ip=os.environ["SERVER"], port=int(os.environ.get("NC_PORT", "2404")))
st = srv.add_station(common_address=47)
st.add_point(io_address=11, type=c104.Type.M_ME_NC_1)
srv.start()
while True:
    time.sleep(1)
"""
IEC104_CLIENT = r"""
import os, sys, time, c104
cl = c104.Client()
conn = cl.add_connection(ip=os.environ["SERVER"], port=int(os.environ.get("NC_PORT", "2404")),
                         init=c104.Init.ALL)
st = conn.add_station(common_address=47)
pt = st.add_point(io_address=11, type=c104.Type.M_ME_NC_1)
cl.start()
for _ in range(100):
    if conn.state in (c104.ConnectionState.OPEN, c104.ConnectionState.OPEN_MUTED):
        break
    time.sleep(0.05)
else:
    sys.exit(f"iec104: not open ({conn.state})")
if conn.is_muted:
    conn.unmute()  # STARTDT act
time.sleep(0.5)
# (lib60870 waits a moment for each confirmation: on a busy machine one may come late, so a
# refusal is asked once more)
ok = any(conn.interrogation(common_address=47) and pt.read() for _ in range(3))
cl.stop()
if not ok:
    sys.exit("iec104: the interrogation or the read was refused")
print("iec104 done")
"""

# ffmpeg as both ends: the server listens (RTSP: takes an ANNOUNCE and RECORD, the media over
# RTP/UDP; RTMP: takes a publisher), the client publishes two seconds of a test picture.
RTSP_SERVER = ["sh", "-c", 'exec ffmpeg -nostdin -loglevel error -rtsp_flags listen '
               '-i "rtsp://$SERVER:${NC_PORT:-554}/held" -f null -']
RTSP_CLIENT = ["sh", "-c", 'ffmpeg -nostdin -loglevel error -re -f lavfi '
               '-i testsrc=size=160x120:rate=10 -t 2 -c:v mpeg4 -f rtsp -rtsp_transport udp '
               '"rtsp://$SERVER:${NC_PORT:-554}/held" && echo rtsp done']
RTMP_SERVER = ["sh", "-c", 'exec ffmpeg -nostdin -loglevel error -listen 1 '
               '-i "rtmp://$SERVER:${NC_PORT:-1935}/live/held" -f null -']
RTMP_CLIENT = ["sh", "-c", 'ffmpeg -nostdin -loglevel error -re -f lavfi '
               '-i testsrc=size=160x120:rate=10 -t 2 -c:v flv1 -f flv '
               '"rtmp://$SERVER:${NC_PORT:-1935}/live/held" && echo rtmp done']

# softflowd reading what the client's interface carried while it fetched a page twice and
# pinged (tcpdump's capture, in immediate mode: libpcap's ring here handed softflowd 1.1's live
# mode no packet), its records exported to nfcapd: NetFlow v9 by default, v5 or IPFIX (10) with
# NC_NFV.
NETFLOW_SERVER = ["sh", "-c", 'mkdir -p "$WORK/nf" && (python3 -m http.server 80 '
                  '--bind "$SERVER" '
                  '--directory "$WORK" >/dev/null 2>&1 &) && exec nfcapd -w "$WORK/nf" '
                  '-b "$SERVER" -p "${NC_PORT:-2055}"']
NETFLOW_CLIENT = ["sh", "-c", 'cd "$WORK" && I=$(ls /sys/class/net | grep -v "^lo$" | head -1); '
                  'tcpdump -i "$I" --immediate-mode -U -w "$WORK/in.pcap" "not udp" '
                  '2>td.err & T=$!; '
                  'for i in $(seq 50); do grep -q listening td.err && break; sleep 0.1; done; '
                  'for i in 1 2; do curl -s -o /dev/null "http://$SERVER/" || exit 1; done; '
                  'ping -c2 -i0.2 "$SERVER" >/dev/null; sleep 0.5; kill $T; wait $T; '
                  'softflowd -r "$WORK/in.pcap" -v "${NC_NFV:-9}" -n "$SERVER:${NC_PORT:-2055}" '
                  '> sf.log 2>&1; grep -q "Flows exported: [1-9]" sf.log && echo netflow done '
                  '|| { cat td.err sf.log; ls -l in.pcap; exit 1; }']

# wsdd (WS-Discovery host daemon, Samba's companion) on the server; wsdd's discovery mode on
# the client: Probe to 239.255.255.250:3702, the host's ProbeMatch and Hello/Bye.
WSD_SERVER = ["sh", "-c", 'ip route add 224.0.0.0/4 '
              'dev $(ls /sys/class/net | grep -v "^lo$" | head -1); '
              'exec wsdd -4 -n heldout -w WORKGROUP']
WSD_CLIENT = ["sh", "-c", 'I=$(ls /sys/class/net | grep -v "^lo$" | head -1); '
              'ip route add 224.0.0.0/4 dev "$I"; '
              'timeout 5 wsdd -4 -D -v -n probe > d.log 2>&1; '
              'grep -qi "heldout" d.log && echo wsd done || { cat d.log; exit 1; }']

# tinc 1.0 in switch mode: two daemons, RSA keys made at start; the client connects to the
# server (the meta connection on tcp/655) and pings through the tunnel (the packets on
# udp/655).
TINC_SH = ('cd "$WORK" && mkdir -p %(n)s/hosts && '
           'printf "Name = %(n)s\\nMode = switch\\nDevice = /dev/net/tun\\n'
           'Interface = tinc%(n)s\\nAddressFamily = ipv4\\n%(extra)s" > %(n)s/tinc.conf && '
           'printf "Address = %(a)s\\nPort = 655\\n" > %(n)s/hosts/%(n)s && '
           'printf "#!/bin/sh\\nip link set \\$INTERFACE up\\n'
           'ip addr add 198.51.100.%(t)s/24 dev \\$INTERFACE\\n" > %(n)s/tinc-up && '
           'chmod +x %(n)s/tinc-up && tincd -c "$WORK/%(n)s" -K2048 </dev/null >/dev/null 2>&1; ')
TINC_SERVER = ["sh", "-c", TINC_SH % {"n": "srv", "a": "$SERVER", "extra": "", "t": "2"}
               + 'for i in $(seq 200); do grep -qs "END RSA PUBLIC KEY" cli/hosts/cli && break; '
               'sleep 0.1; done; cp cli/hosts/cli srv/hosts/; touch srv.ready; '
               'exec tincd -c "$WORK/srv" -D --pidfile="$WORK/srv.pid"']
TINC_CLIENT = ["sh", "-c", TINC_SH % {"n": "cli", "a": "$CLIENT", "extra": "ConnectTo = srv\\n",
                                      "t": "1"}
               + 'for i in $(seq 100); do [ -f srv.ready ] && break; sleep 0.1; done; '
               'cp srv/hosts/srv cli/hosts/; tincd -c "$WORK/cli" --pidfile="$WORK/cli.pid" '
               '--logfile="$WORK/cli.log" || exit 1; '
               'ok=; for i in $(seq 10); do ping -c1 -W1 198.51.100.2 >/dev/null 2>&1 && ok=1 '
               '&& break; sleep 0.2; done; ping -c2 -i0.2 198.51.100.2 >/dev/null; '
               'tincd -c "$WORK/cli" -k --pidfile="$WORK/cli.pid" 2>/dev/null; '
               '[ -n "$ok" ] && echo tinc done || { cat cli.log; exit 1; }']

# IPsec: two strongSwan charon daemons (each in a mount namespace of its own, for its /run),
# IKEv2 with a pre-shared key: IKE_SA_INIT on udp/500, IKE_AUTH on udp/4500 (MOBIKE's move).
# The child SA is refused: this VM's kernel has no ESP ("Protocol not supported" from XFRM),
# so no ESP packet follows. Debian: strongswan-charon, strongswan-swanctl.
IKE_CONF = ('connections {\\n held {\\n  local_addrs = %(l)s\\n  remote_addrs = %(r)s\\n'
            '  proposals = aes128-sha256-modp2048\\n'
            '  local {\\n   auth = psk\\n   id = %(li)s\\n  }\\n'
            '  remote {\\n   auth = psk\\n   id = %(ri)s\\n  }\\n'
            '  children {\\n   net {\\n    local_ts = %(l)s/32\\n    remote_ts = %(r)s/32\\n'
            '    esp_proposals = aes128-sha256\\n   }\\n  }\\n }\\n}\\n'
            'secrets {\\n ike-1 {\\n  id-1 = server\\n  id-2 = client\\n'
            '  secret = heldoutsecret\\n }\\n}\\n')
IKE_SH = ('cd "$WORK" && printf "charon {\\n plugins {\\n  vici {\\n   socket = '
          'unix:///run/held.vici\\n  }\\n }\\n}\\n" > %(n)s-charon.conf && printf "'
          + IKE_CONF + '" > %(n)s.conf && exec unshare -m sh -c \'mount -t tmpfs tmpfs /run && '
          '{ STRONGSWAN_CONF=$WORK/%(n)s-charon.conf /usr/lib/ipsec/charon >/dev/null 2>&1 & }; '
          'for i in $(seq 50); do [ -S /run/held.vici ] && break; sleep 0.1; done; '
          'swanctl --load-all --file $WORK/%(n)s.conf -u unix:///run/held.vici >/dev/null && ')
IPSEC_SERVER = ["sh", "-c", IKE_SH % {"n": "s", "l": "$SERVER", "r": "$CLIENT", "li": "server",
                                     "ri": "client"} + 'sleep 60\'']
IPSEC_CLIENT = ["sh", "-c", IKE_SH % {"n": "c", "l": "$CLIENT", "r": "$SERVER", "li": "client",
                                     "ri": "server"}
                + 'swanctl --initiate --child net -u unix:///run/held.vici > i.log 2>&1; '
                'grep -q "IKE_SA held.* established" i.log && echo ipsec done '
                '|| { cat i.log; exit 1; }\'']

# Ninth round: inspectors no corpus capture and no earlier round reached, whose test vectors
# were captured by hand from these same implementations: scenarios anyone can run again.
# gearmand (Gearman's job server, C++); the client's `gearman` tool as a worker for one job
# and as the client that submits it (binary protocol, \0REQ/\0RES packets).
GEARMAN_SERVER = ["sh", "-c", ADDR_SH + 'exec gearmand -L "$A" -p "${NC_PORT:-4730}" '
                  '-l "$WORK/gearmand.log" -P "$WORK/gearmand.pid" -t 1']
GEARMAN_CLIENT = ["sh", "-c", ADDR_SH + 'P=${NC_PORT:-4730}; '
                  'gearman -h "$A" -p "$P" -w -c 1 -f upper -- tr a-z A-Z & W=$!; '
                  'R=; for i in $(seq 20); do R=$(echo held | timeout 5 gearman -h "$A" -p "$P" '
                  '-f upper 2>/dev/null) && [ -n "$R" ] && break; sleep 0.2; done; '
                  '{ [ -n "$R" ] && wait $W; } || kill $W; '
                  '[ "$R" = HELD ] && echo gearman done || { echo "got: $R"; exit 1; }']

# munin-node (Perl, Net::Server) and munin's own master, munin-update (run as the munin user,
# as it insists): the node's greeting, then cap, nodes, list, config and fetch of its plugins.
MUNIN_SERVER = ["sh", "-c", ADDR_SH + 'printf "log_level 4\\nlog_file $WORK/node.log\\n'
                'pid_file $WORK/node.pid\\nbackground 0\\nsetsid 0\\nuser root\\ngroup root\\n'
                'allow ^.*\\$\\nhost_name held\\nhost $A\\nport ${NC_PORT:-4949}\\n" '
                '> "$WORK/node.conf" && '
                'exec munin-node --config "$WORK/node.conf"']
MUNIN_CLIENT = ["sh", "-c", ADDR_SH + 'M="$WORK/m"; '
                'mkdir -p "$M/db" "$M/www" "$M/log" "$M/run" && '
                'printf "dbdir $M/db\\nhtmldir $M/www\\nlogdir $M/log\\nrundir $M/run\\n'
                '[held;held]\\n  address $A\\n  port ${NC_PORT:-4949}\\n" > "$M/munin.conf" && '
                'chown -R munin "$M" && chmod 755 "$WORK" && '
                'timeout 40 setpriv --reuid munin --regid munin --init-groups '
                '/usr/share/munin/munin-update --config_file "$M/munin.conf"; '
                'ls "$M/db/held" 2>/dev/null | grep -q rrd && echo munin done '
                '|| { cat "$M/log/munin-update.log"; exit 1; }']

# HL7 v2 over MLLP: hl7apy's MLLPServer answering each message with an ACK that hl7apy builds;
# python-hl7's MLLPClient sending an ADT^A01 and an ORU^R01 (one connection each, as the
# server closes after its answer).
HL7_SERVER = r"""
import os
from hl7apy.core import Message
from hl7apy.mllp import AbstractHandler, MLLPServer
from hl7apy.parser import parse_message
class Ack(AbstractHandler):
    def reply(self):
        m = parse_message(self.incoming_message)
        a = Message("ACK", version=m.msh.msh_12.value)
        a.msh.msh_3 = "HELDSRV"
        a.msh.msh_10 = "A" + m.msh.msh_10.value
        a.msa.msa_1 = "AA"
        a.msa.msa_2 = m.msh.msh_10.value
        return a.to_mllp()
MLLPServer(os.environ["SERVER"], int(os.environ.get("NC_PORT", "2575")),
           {"ADT^A01": (Ack,), "ORU^R01": (Ack,)}).serve_forever()
"""
HL7_CLIENT = r"""
import os
from hl7.client import MLLPClient
msgs = [
    "MSH|^~\\&|HELD|CLI|HELDSRV|SRV|20261202120000||ADT^A01|M0001|P|2.5\r"
    "EVN|A01|20261202120000\rPID|1||12345^^^HELD^MR||Doe^Jane||19700101|F\rPV1|1|I|W^101^1\r",
    "MSH|^~\\&|HELD|CLI|HELDSRV|SRV|20261202120100||ORU^R01|M0002|P|2.5\r"
    "PID|1||12345^^^HELD^MR||Doe^Jane\rOBR|1||O1|GLU^Glucose\r"
    "OBX|1|NM|GLU^Glucose||5.4|mmol/L|||||F\r",
]
for m in msgs:
    c = MLLPClient(os.environ["SERVER"], int(os.environ.get("NC_PORT", "2575")))
    r = c.send_message(m)
    c.close()
    if b"MSA|AA" not in r:
        raise SystemExit(f"hl7: no acceptance: {r!r}")
print("hl7 done")
"""

# DDS: Eclipse Cyclone DDS (the cyclonedds wheel) publishing a topic in the server's namespace
# and subscribing in the client's, domain 0: SPDP discovery to 239.255.0.1:7400, then SEDP
# and the samples to the participants' unicast ports (7410, 7411: the specification's default
# port mapping, which Cyclone follows with a participant index, else it takes any free port).
# The interface is named: Cyclone would otherwise take loopback in a namespace.
RTPS_COMMON = r"""
import os, sys, time
from dataclasses import dataclass
os.system("ip route add 224.0.0.0/4 dev $(ls /sys/class/net | grep -v '^lo$' | head -1)")
dev = [d for d in os.listdir("/sys/class/net") if d != "lo"][0]
os.environ["CYCLONEDDS_URI"] = (
    f"<General><Interfaces><NetworkInterface name='{dev}'/></Interfaces></General>"
    "<Discovery><ParticipantIndex>auto</ParticipantIndex></Discovery>")
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.topic import Topic
@dataclass
class Held(IdlStruct, typename="Held"):
    seq: int
    text: str
dp = DomainParticipant(0)
topic = Topic(dp, "HeldTopic", Held)
"""
RTPS_SERVER = RTPS_COMMON + r"""
from cyclonedds.pub import DataWriter
w = DataWriter(dp, topic)
for i in range(400):
    w.write(Held(seq=i, text="held out"))
    time.sleep(0.05)
"""
RTPS_CLIENT = RTPS_COMMON + r"""
from cyclonedds.sub import DataReader
r = DataReader(dp, topic)
got = 0
for _ in range(100):
    got += len(r.take(N=10))
    if got >= 5:
        break
    time.sleep(0.1)
if got < 5:
    sys.exit(f"rtps: {got} samples")
print("rtps done")
"""

# UFTP 4/5: uftpd receiving in the server's namespace, uftp sending a file to it in unicast
# mode (the announce, registration, file info, data blocks, status and completion on
# udp/1044, unencrypted).
UFTP_SERVER = ["sh", "-c", 'mkdir -p "$WORK/in" && exec uftpd -d -D "$WORK/in" '
               '-p "${NC_PORT:-1044}" -L "$WORK/uftpd.log"']
UFTP_CLIENT = ["sh", "-c", 'head -c 20000 /dev/urandom > "$WORK/held.bin" && '
               'timeout 30 uftp -M "$SERVER" -p "${NC_PORT:-1044}" -R 20000 -x 1 '
               '"$WORK/held.bin" > "$WORK/uftp.log" 2>&1; '
               'cmp -s "$WORK/held.bin" "$WORK/in/held.bin" 2>/dev/null && echo uftp done '
               '|| { find "$WORK/in"; tail -20 "$WORK/uftp.log" "$WORK/uftpd.log"; exit 1; }']

# Icecast 2.4 (Debian's icecast2, dropping root for its icecast2 user) with ezstream (libshout)
# as the source client: Ogg Vorbis over HTTP (SOURCE, then again with its password) to the
# listen port (8000); with NC_ICY, MP3 over the SHOUTcast v1 (ICY) source protocol to the
# SHOUTcast-compatible port Icecast opens next to it for its shoutcast-mount (8001: libshout's
# ICY connects to the port it is given plus one, as SHOUTcast sources do; it first "pokes" the
# port with a request of the same form, and sends the title to the listen port's admin.cgi).
ICECAST_SERVER = ["sh", "-c", ADDR_SH + 'P=${NC_PORT:-8000}; mkdir -p "$WORK/ice" && '
                  'chmod 755 "$WORK" && '
                  'chmod 777 "$WORK/ice" && printf "<icecast><limits><sources>4</sources>'
                  '</limits><authentication><source-password>heldsrc</source-password>'
                  '<admin-user>admin</admin-user><admin-password>heldadm</admin-password>'
                  '</authentication><hostname>held</hostname><listen-socket><port>$P</port>'
                  '<bind-address>$A</bind-address><shoutcast-mount>/held.mp3</shoutcast-mount>'
                  '</listen-socket><paths><basedir>/usr/share/icecast2</basedir>'
                  '<logdir>$WORK/ice</logdir><webroot>/usr/share/icecast2/web</webroot>'
                  '<adminroot>/usr/share/icecast2/admin</adminroot></paths><logging>'
                  '<accesslog>access.log</accesslog><errorlog>error.log</errorlog>'
                  '<loglevel>3</loglevel></logging><security><chroot>0</chroot><changeowner>'
                  '<user>icecast2</user><group>icecast</group></changeowner></security>'
                  '</icecast>" > "$WORK/icecast.xml" && exec icecast2 -c "$WORK/icecast.xml"']
EZSTREAM_XML = ('<ezstream><servers><server><protocol>%(proto)s</protocol><hostname>$A'
                '</hostname><port>%(port)s</port><password>heldsrc</password><tls>none</tls>'
                '</server></servers><streams><stream><mountpoint>/held.%(ext)s</mountpoint>'
                '<format>%(fmt)s</format></stream></streams><intakes><intake><type>file</type>'
                '<filename>$WORK/held.%(ext)s</filename><stream_once>Yes</stream_once>'
                '</intake></intakes></ezstream>')
ICECAST_CLIENT = ["sh", "-c", ADDR_SH + 'P=${NC_PORT:-8000}; cd "$WORK" && '
                  'ffmpeg -nostdin -loglevel error -f lavfi -i sine=frequency=440:duration=2 '
                  '-c:a libvorbis held.ogg && ffmpeg -nostdin -loglevel error -f lavfi '
                  '-i sine=frequency=440:duration=2 -c:a libmp3lame held.mp3 && printf "'
                  + EZSTREAM_XML % {"proto": "HTTP", "port": "$P", "ext": "ogg", "fmt": "Ogg"}
                  + '" > http.xml && printf "'
                  + EZSTREAM_XML % {"proto": "ICY", "port": "$P", "ext": "mp3", "fmt": "MP3"}
                  + '" > icy.xml && chmod 600 http.xml icy.xml && X=${NC_ICY:+icy}; '
                  'timeout 20 ezstream -c ${X:-http}.xml > run.log 2>&1 && echo icecast done '
                  '|| { cat run.log ice/error.log; exit 1; }']


ALL = {
    "ftp": {"server": [PY, "-c", FTP_SERVER], "client": [PY, "-c", FTP_CLIENT], "settle": 3},
    "mail": {"server": [PY, "-c", DOVECOT_SERVER], "client": [PY, "-c", MAIL_CLIENT],
             "settle": 3},
    "smtp": {"server": [PY, "-c", SMTP_SERVER], "client": [PY, "-c", SMTP_CLIENT],
             "settle": 3},
    "tfo": {"server": [PY, "-c", TFO_SERVER], "client": [PY, "-c", TFO_CLIENT],
            "sysctl": {"net.ipv4.tcp_fastopen": "3"}},
    "dns": {"server": DNS_SERVER, "client": [PY, "-c", DNS_CLIENT]},
    "websocket": {"server": [PY, "-c", WS_SERVER], "client": [PY, "-c", WS_CLIENT]},
    "websocket_plain": {"server": [PY, "-c", WS_PLAIN_SERVER],
                        "client": [PY, "-c", WS_PLAIN_CLIENT]},
    "thrift": {"server": [PY, "-c", THRIFT_SERVER], "client": [PYENV, "-c", THRIFT_CLIENT]},
    "smpp": {"server": [PY, "-c", SMPP_SERVER], "client": [PYENV, "-c", SMPP_CLIENT]},
    "dicom": {"server": [PYENV, "-c", DICOM_SERVER], "client": [PYENV, "-c", DICOM_CLIENT],
              "settle": 3},
    "z3950": {"server": Z3950_SERVER, "client": Z3950_CLIENT},
    "nfs": {"server": NFS_SERVER, "client": NFS_CLIENT},
    "opcua": {"server": [PYENV, "-c", OPCUA_SERVER], "client": [PYENV, "-c", OPCUA_CLIENT],
              "settle": 5},
    "pptp": {"server": PPTP_SERVER, "client": PPTP_CLIENT},
    "corba": {"server": CORBA_SERVER, "client": CORBA_CLIENT, "settle": 3},
    "openflow": {"server": [PYENV, "-c", OPENFLOW_SERVER], "client": [PYENV, "-c", OPENFLOW_CLIENT],
                 "settle": 5},
    "xdmcp": {"server": [PY, "-c", XDMCP_SERVER], "client": XDMCP_CLIENT},
    "knx": {"server": ["sleep", "60"], "client": [PYENV, "-c", KNX_CLIENT]},
    "bacnet": {"server": [PYENV, "-c", BACNET_SERVER], "client": [PYENV, "-c", BACNET_CLIENT],
               "settle": 4},
    "cassandra": {"server": [PY, "-c", CASSANDRA_SERVER],
                  "client": [PYENV, "-c", CASSANDRA_CLIENT]},
    "bitcoin": {"server": [PY, "-c", SINK_8333], "client": [PYENV, "-c", BITCOIN_CLIENT]},
    "h2": {"server": H2_SERVER, "client": H2_CLIENT},
    "tftp": {"server": TFTP_SERVER, "client": TFTP_CLIENT},
    "coap": {"server": [PYENV, "-c", COAP_SERVER], "client": [PYENV, "-c", COAP_CLIENT], "settle": 3},
    "xmpp": {"server": [PY, "-c", XMPP_SERVER], "client": [PY, "-c", XMPP_CLIENT],
             "settle": 8},
    "http": {"server": [PY, "-c", HTTP_SERVER], "client": HTTP_CLIENT},
    "https": {"server": HTTPS_SERVER, "client": HTTPS_CLIENT, "settle": 2},
    "ssh": {"server": SSH_SERVER, "client": SSH_CLIENT, "settle": 2},
    "dns2": {"server": DNS2_SERVER, "client": [PY, "-c", DNS2_CLIENT]},
    "mqtt": {"server": MQTT_SERVER, "client": MQTT_CLIENT},
    "redis": {"server": REDIS_SERVER, "client": REDIS_CLIENT},
    "ntp": {"server": NTP_SERVER, "client": NTP_CLIENT, "settle": 2},
    "postgres": {"server": [PY, "-c", PG_SERVER], "client": PG_CLIENT, "settle": 3},
    "git": {"server": GIT_SERVER, "client": GIT_CLIENT, "settle": 2},
    "rsync": {"server": RSYNC_SERVER, "client": RSYNC_CLIENT},
    "snmp": {"server": SNMP_SERVER, "client": SNMP_CLIENT},
    "memcached": {"server": MEMCACHED_SERVER, "client": MEMCACHED_CLIENT},
    "syslog": {"server": [PY, "-c", SYSLOG_SERVER], "client": SYSLOG_CLIENT},
    "telnet": {"server": TELNET_SERVER, "client": TELNET_CLIENT},
    "quic": {"server": [PYENV, "-c", QUIC_SERVER], "client": [PYENV, "-c", QUIC_CLIENT],
             "settle": 2},
    "mysql": {"server": MYSQL_SERVER, "client": MYSQL_CLIENT, "settle": 2},
    "ldap": {"server": LDAP_SERVER, "client": LDAP_CLIENT},
    "smb": {"server": [PY, "-c", SMB_SERVER], "client": SMB_CLIENT, "settle": 3},
    "sip": {"server": SIP_SERVER, "client": SIP_CLIENT},
    "irc": {"server": IRC_SERVER, "client": IRC_CLIENT},
    "stun": {"server": STUN_SERVER, "client": STUN_CLIENT},
    "radius": {"server": [PY, "-c", RADIUS_SERVER], "client": RADIUS_CLIENT, "settle": 2},
    "socks": {"server": SOCKS_SERVER, "client": SOCKS_CLIENT, "settle": 2},
    "openvpn": {"server": OVPN_SERVER, "client": OVPN_CLIENT, "settle": 2},
    "wireguard": {"server": WG_SERVER, "client": WG_CLIENT},
    "modbus": {"server": [PYENV, "-c", MODBUS_SERVER], "client": [PYENV, "-c", MODBUS_CLIENT],
               "settle": 2},
    "vnc": {"server": VNC_SERVER, "client": VNC_CLIENT, "settle": 2},
    "dhcp": {"server": DHCP_SERVER, "client": DHCP_CLIENT},
    "bittorrent": {"server": [PY, "-c", BT_SERVER], "client": [PY, "-c", BT_CLIENT],
                   "settle": 3},
    "kerberos": {"server": KRB_SERVER, "client": KRB_CLIENT, "settle": 2},
    "nats": {"server": NATS_SERVER, "client": [PYENV, "-c", NATS_CLIENT]},
    "bgp": {"server": BGP_SERVER, "client": BGP_CLIENT},
    "collectd": {"server": COLLECTD_SERVER, "client": COLLECTD_CLIENT},
    "dot": {"server": DOT_SERVER, "client": DOT_CLIENT, "settle": 2},
    "nbns": {"server": NBNS_SERVER, "client": NBNS_CLIENT, "settle": 3},
    "mdns": {"server": [PYENV, "-c", MDNS_SERVER], "client": [PYENV, "-c", MDNS_CLIENT],
             "settle": 3},
    "ping": {"server": ["sleep", "30"], "client": PING_CLIENT},
    "zabbix": {"server": ZABBIX_SERVER, "client": [PYENV, "-c", ZABBIX_CLIENT]},
    "ssdp": {"server": [PYENV, "-c", SSDP_SERVER], "client": [PYENV, "-c", SSDP_CLIENT],
             "settle": 2},
    "doq": {"server": [PYENV, "-c", DOQ_SERVER], "client": [PYENV, "-c", DOQ_CLIENT],
            "settle": 2},
    "snmptrap": {"server": TRAP_SERVER, "client": TRAP_CLIENT},
    "ptp": {"server": PTP_SERVER, "client": PTP_CLIENT},
    "proxy": {"server": PROXY_SERVER, "client": PROXY_CLIENT, "settle": 3},
    "ospf": {"server": OSPF_SERVER, "client": OSPF_CLIENT},
    "vrrp": {"server": VRRP_SERVER, "client": VRRP_CLIENT, "settle": 2},
    "zeromq": {"server": [PYENV, "-c", ZMQ_SERVER], "client": [PYENV, "-c", ZMQ_CLIENT]},
    "s7comm": {"server": [PYENV, "-c", S7_SERVER], "client": [PYENV, "-c", S7_CLIENT]},
    "enip": {"server": ENIP_SERVER, "client": ENIP_CLIENT, "settle": 3},
    "iec104": {"server": [PYENV, "-c", IEC104_SERVER], "client": [PYENV, "-c", IEC104_CLIENT],
               "settle": 2},
    "rtsp": {"server": RTSP_SERVER, "client": RTSP_CLIENT},
    "rtmp": {"server": RTMP_SERVER, "client": RTMP_CLIENT},
    "netflow": {"server": NETFLOW_SERVER, "client": NETFLOW_CLIENT},
    "wsd": {"server": WSD_SERVER, "client": WSD_CLIENT},
    "tinc": {"server": TINC_SERVER, "client": TINC_CLIENT},
    "ipsec": {"server": IPSEC_SERVER, "client": IPSEC_CLIENT},
    "gearman": {"server": GEARMAN_SERVER, "client": GEARMAN_CLIENT},
    "munin": {"server": MUNIN_SERVER, "client": MUNIN_CLIENT, "settle": 3},
    "hl7": {"server": [PYENV, "-c", HL7_SERVER], "client": [PYENV, "-c", HL7_CLIENT],
            "settle": 2},
    "rtps": {"server": [PYENV, "-c", RTPS_SERVER], "client": [PYENV, "-c", RTPS_CLIENT],
             "settle": 2},
    "uftp": {"server": UFTP_SERVER, "client": UFTP_CLIENT},
    "icecast": {"server": ICECAST_SERVER, "client": ICECAST_CLIENT, "settle": 2},
}
