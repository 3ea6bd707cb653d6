//! The HTTP/1.1 endpoint ([`MetricsServer`]): one request per connection, read within
//! [`Limits`], answered and closed; the accepting thread turns connections past the limit away.
//! What it serves is a function of the path ([`Page`]): `/metrics` alone
//! ([`MetricsServer::start`]), or any fixed set of read-only paths ([`MetricsServer::serve`]).

use super::CONTENT_TYPE;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the server takes from a client.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most bytes of a request read (its line and headers; a body is never read): 431 past it.
    pub max_request: usize,
    /// Time a client has to send its request: 408 past it.
    pub request_timeout: Duration,
    /// Time the answer may take to be written (the client reading it).
    pub write_timeout: Duration,
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request: 8 << 10,
            request_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(5),
            max_connections: 4,
        }
    }
}

/// How often the accepting thread looks for a connection and at its stop flag.
const ACCEPT_POLL: Duration = Duration::from_millis(50);
/// After an error answer, what the client still sends is read and discarded for at most this
/// long and this much, so that closing does not reset the connection before it reads the answer.
const LINGER: Duration = Duration::from_millis(500);
const LINGER_BYTES: usize = 64 << 10;

/// One answer of the server: what `GET` of a path gets.
#[derive(Clone, Debug)]
pub struct Page {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// More header lines, each ending in CRLF (a `Content-Security-Policy`, say); fixed text of
    /// the server's own, never anything a client sent.
    pub headers: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

/// What the server answers for a path (its query removed): None for 404.
type Route = dyn Fn(&str) -> Option<Page> + Send + Sync;

/// The metrics endpoint: a thread accepting connections on its address, each served on a
/// thread of its own (at most [`Limits::max_connections`] at once). Stops when dropped.
pub struct MetricsServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MetricsServer {
    /// Listen on `addr` (port 0: one the system picks) and answer `GET /metrics` with
    /// `render()`.
    pub fn start(
        addr: SocketAddr,
        limits: Limits,
        render: impl Fn() -> String + Send + Sync + 'static,
    ) -> io::Result<MetricsServer> {
        MetricsServer::serve(addr, limits, move |path| {
            (path == "/metrics").then(|| Page {
                content_type: CONTENT_TYPE,
                headers: "",
                body: render().into_bytes(),
            })
        })
    }

    /// Listen on `addr` (port 0: one the system picks) and answer `GET` of a path with what
    /// `route` gives for it (called on the connection's thread; None: 404). Read-only: no
    /// method but `GET` and `HEAD` is ever served.
    pub fn serve(
        addr: SocketAddr,
        limits: Limits,
        route: impl Fn(&str) -> Option<Page> + Send + Sync + 'static,
    ) -> io::Result<MetricsServer> {
        let l = TcpListener::bind(addr)?;
        l.set_nonblocking(true)?;
        let addr = l.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let render: Arc<Route> = Arc::new(route);
        let s = stop.clone();
        let thread = std::thread::Builder::new()
            .name("metrics".into())
            .spawn(move || accept_loop(l, limits, render, &s))?;
        Ok(MetricsServer {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A connection slot, given back when its thread ends (or is never started).
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

fn accept_loop(l: TcpListener, limits: Limits, render: Arc<Route>, stop: &AtomicBool) {
    let active = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        let s = match l.accept() {
            Ok((s, _)) => s,
            // Nothing to accept, or an error (out of descriptors): never spin on it.
            Err(_) => {
                std::thread::sleep(ACCEPT_POLL);
                continue;
            }
        };
        if active.load(Ordering::Relaxed) >= limits.max_connections.max(1) {
            busy(s);
            continue;
        }
        active.fetch_add(1, Ordering::Relaxed);
        let slot = Slot(active.clone());
        let render = render.clone();
        // A thread that cannot be started drops its closure, and the slot with it.
        let _ = std::thread::Builder::new()
            .name("metrics-conn".into())
            .spawn(move || {
                let _slot = slot;
                serve(s, &limits, &*render);
            });
    }
}

/// Too many connections: say so if the socket takes it at once, and close.
fn busy(mut s: TcpStream) {
    let _ = s.set_nonblocking(true);
    let _ = s.write_all(&response(
        503,
        "Service Unavailable",
        "text/plain; charset=utf-8",
        "",
        b"too many connections\n",
        false,
    ));
}

/// Why no request was read.
#[derive(Debug, PartialEq, Eq)]
enum NoRequest {
    TooLarge,
    TimedOut,
    Closed,
}

/// One connection: read the request's head, answer, close.
fn serve(mut s: TcpStream, limits: &Limits, render: &Route) {
    let _ = s.set_nonblocking(false);
    let _ = s.set_nodelay(true);
    let (answer, linger) = match read_head(&mut s, limits) {
        Ok(head) => (answer(&head, render), false),
        Err(NoRequest::TooLarge) => (
            error(
                431,
                "Request Header Fields Too Large",
                "request too large\n",
            ),
            true,
        ),
        Err(NoRequest::TimedOut) => (error(408, "Request Timeout", "request timeout\n"), true),
        Err(NoRequest::Closed) => return,
    };
    if write_within(&mut s, &answer, Instant::now() + limits.write_timeout).is_err() {
        return;
    }
    let _ = s.shutdown(Shutdown::Write);
    if linger {
        // The client may still be sending: read what comes for a moment, so that the close does
        // not reset the connection and lose the answer.
        let end = Instant::now() + LINGER;
        let mut buf = [0u8; 4096];
        let mut n = 0;
        while n < LINGER_BYTES {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() || s.set_read_timeout(Some(left)).is_err() {
                break;
            }
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k,
            }
        }
    }
}

/// Write all of `b` before `deadline` (each write waits only for what is left of it).
fn write_within(s: &mut TcpStream, mut b: &[u8], deadline: Instant) -> io::Result<()> {
    while !b.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        s.set_write_timeout(Some(left))?;
        match s.write(b) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(k) => b = &b[k..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Read a request's line and headers (up to the empty line), within the limits.
fn read_head(s: &mut TcpStream, limits: &Limits) -> Result<Vec<u8>, NoRequest> {
    let deadline = Instant::now() + limits.request_timeout;
    let mut buf = vec![0u8; limits.max_request.max(1)];
    let (mut n, mut searched) = (0usize, 0usize);
    loop {
        // Only the bytes read since the last look, and the 3 before them, can complete the end.
        if let Some(end) = head_end(&buf[searched.saturating_sub(3)..n]) {
            buf.truncate(searched.saturating_sub(3) + end);
            return Ok(buf);
        }
        searched = n;
        if n == buf.len() {
            return Err(NoRequest::TooLarge);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || s.set_read_timeout(Some(left)).is_err() {
            return Err(NoRequest::TimedOut);
        }
        match s.read(&mut buf[n..]) {
            Ok(0) => return Err(NoRequest::Closed),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(NoRequest::TimedOut)
            }
            Err(_) => return Err(NoRequest::Closed),
        }
    }
}

/// Where a request's head ends (after its empty line: CRLF CRLF, or a bare LF LF).
fn head_end(b: &[u8]) -> Option<usize> {
    let crlf = b.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = b.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The answer to a request whose head is `head`: the route's page for `GET` of its path (a
/// query is ignored), its headers alone for `HEAD`; 405 for another method, 404 for a path the
/// route does not serve, 400 for what is not an HTTP/1 request line.
fn answer(head: &[u8], render: &Route) -> Vec<u8> {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Ok(line) = std::str::from_utf8(line) else {
        return error(400, "Bad Request", "bad request\n");
    };
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return error(400, "Bad Request", "bad request\n");
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
        return error(400, "Bad Request", "bad request\n");
    }
    let head_only = method == "HEAD";
    if method != "GET" && !head_only {
        return response(
            405,
            "Method Not Allowed",
            "text/plain; charset=utf-8",
            "Allow: GET, HEAD\r\n",
            b"only GET\n",
            false,
        );
    }
    let path = target.split('?').next().unwrap_or(target);
    match render(path) {
        Some(p) => response(200, "OK", p.content_type, p.headers, &p.body, head_only),
        None => error(404, "Not Found", "not found: the metrics are at /metrics\n"),
    }
}

fn error(status: u16, reason: &str, body: &str) -> Vec<u8> {
    response(
        status,
        reason,
        "text/plain; charset=utf-8",
        "",
        body.as_bytes(),
        false,
    )
}

/// An HTTP/1.1 answer that closes the connection (`head_only`: its headers alone, with the
/// length the body would have).
fn response(
    status: u16,
    reason: &str,
    content_type: &str,
    extra: &str,
    body: &[u8],
    head_only: bool,
) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\
         {extra}\r\n",
        body.len()
    )
    .into_bytes();
    if !head_only {
        out.extend_from_slice(body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok_render() -> String {
        "# TYPE a counter\n# HELP a a\na_total 1\n# EOF\n".to_string()
    }

    fn status(answer: &[u8]) -> u16 {
        let t = String::from_utf8_lossy(answer);
        t.split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    fn ok_route(path: &str) -> Option<Page> {
        (path == "/metrics").then(|| Page {
            content_type: CONTENT_TYPE,
            headers: "",
            body: ok_render().into_bytes(),
        })
    }

    #[test]
    fn requests_are_answered_by_method_and_path() {
        let r = &ok_route;
        let a = answer(
            b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
            r,
        );
        let t = String::from_utf8(a).unwrap();
        assert!(t.starts_with("HTTP/1.1 200 OK\r\n"), "{t}");
        assert!(
            t.contains(&format!("Content-Type: {CONTENT_TYPE}\r\n")),
            "{t}"
        );
        assert!(
            t.contains(&format!("Content-Length: {}\r\n", ok_render().len())),
            "{t}"
        );
        assert!(
            t.ends_with("\r\n\r\n# TYPE a counter\n# HELP a a\na_total 1\n# EOF\n"),
            "{t}"
        );
        assert_eq!(status(&answer(b"GET /metrics?x=1 HTTP/1.0\n\n", r)), 200);
        let h = String::from_utf8(answer(b"HEAD /metrics HTTP/1.1\r\n\r\n", r)).unwrap();
        assert!(
            h.starts_with("HTTP/1.1 200") && h.ends_with("\r\n\r\n"),
            "{h}"
        );
        assert!(
            h.contains(&format!("Content-Length: {}\r\n", ok_render().len())),
            "{h}"
        );
        assert_eq!(status(&answer(b"GET / HTTP/1.1\r\n\r\n", r)), 404);
        assert_eq!(status(&answer(b"GET /metricsx HTTP/1.1\r\n\r\n", r)), 404);
        let p = String::from_utf8(answer(b"POST /metrics HTTP/1.1\r\n\r\n", r)).unwrap();
        assert!(
            p.starts_with("HTTP/1.1 405 ") && p.contains("Allow: GET, HEAD\r\n"),
            "{p}"
        );
        assert_eq!(status(&answer(b"DELETE / HTTP/1.1\r\n\r\n", r)), 405);
        for bad in [
            &b"\xff\xfe\x00garbage\r\n\r\n"[..],
            b"GET\r\n\r\n",
            b"GET /metrics\r\n\r\n",
            b"GET /metrics HTTP/2 extra\r\n\r\n",
            b"GET metrics HTTP/1.1\r\n\r\n",
            b"GET /metrics SPDY/3\r\n\r\n",
            b"",
        ] {
            assert_eq!(
                status(&answer(bad, r)),
                400,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    /// A server of several paths: each its own type and headers (fixed text of the server's),
    /// `HEAD` the same headers; a path it does not serve 404, any other method 405.
    #[test]
    fn a_route_serves_its_paths_alone() {
        let route = |p: &str| match p {
            "/" => Some(Page {
                content_type: "text/html; charset=utf-8",
                headers: "Content-Security-Policy: default-src 'none'\r\n",
                body: b"<p>hi</p>".to_vec(),
            }),
            "/live.json" => Some(Page {
                content_type: "application/json",
                headers: "",
                body: b"{}".to_vec(),
            }),
            _ => None,
        };
        let t = String::from_utf8(answer(b"GET /?x HTTP/1.1\r\n\r\n", &route)).unwrap();
        assert!(t.starts_with("HTTP/1.1 200 OK\r\n"), "{t}");
        assert!(
            t.contains("\r\nContent-Type: text/html; charset=utf-8\r\n"),
            "{t}"
        );
        assert!(
            t.contains("\r\nContent-Security-Policy: default-src 'none'\r\n"),
            "{t}"
        );
        assert!(t.contains("\r\nX-Content-Type-Options: nosniff\r\n"), "{t}");
        assert!(t.ends_with("\r\n\r\n<p>hi</p>"), "{t}");
        let h = String::from_utf8(answer(b"HEAD /live.json HTTP/1.1\r\n\r\n", &route)).unwrap();
        assert!(
            h.contains("Content-Length: 2\r\n") && h.ends_with("\r\n\r\n"),
            "{h}"
        );
        assert_eq!(
            status(&answer(b"GET /metrics HTTP/1.1\r\n\r\n", &route)),
            404
        );
        assert_eq!(
            status(&answer(b"POST /live.json HTTP/1.1\r\n\r\n", &route)),
            405
        );
    }

    /// Limits for a test server: requests of 8 KiB, a request time of `request_timeout`, at
    /// most `max_connections` at once, and a write time no machine overruns.
    fn limits(request_timeout: Duration, max_connections: usize) -> Limits {
        Limits {
            max_request: 8 << 10,
            request_timeout,
            write_timeout: Duration::from_secs(120),
            max_connections,
        }
    }

    /// An hour: the server never times a test's client out (what it answers does not depend
    /// on how fast the machine is).
    const NEVER: Duration = Duration::from_secs(3600);

    /// Send `req` to the server, then read its answer to the end (the read timeout is a
    /// failsafe: every answer comes at once, or at the server's own request timeout).
    fn exchange(addr: SocketAddr, req: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        s.write_all(req).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    const GET: &[u8] = b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n";

    /// More connection slots than the test ever opens connections, and no request timeout in
    /// the test's time: every answer is decided by what the client sent, never by the clock.
    #[test]
    fn the_server_survives_hostile_clients() {
        let srv =
            MetricsServer::start("127.0.0.1:0".parse().unwrap(), limits(NEVER, 64), ok_render)
                .unwrap();
        let addr = srv.local_addr();
        assert!(exchange(addr, GET).ends_with("a_total 1\n# EOF\n"));
        // Huge: 16 KiB of header without an end; answered 431 once 8 KiB are in.
        let mut huge = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
        huge.resize(16 << 10, b'a');
        assert!(exchange(addr, &huge).starts_with("HTTP/1.1 431 "));
        // Garbage, and a method other than GET.
        assert!(exchange(addr, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\n\n")
            .starts_with("HTTP/1.1 400 "));
        assert!(exchange(addr, b"PUT /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405 "));
        assert!(exchange(addr, b"GET /x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
        // A request in pieces, its end split between two of them (the pause only makes it
        // likely that the server reads them apart; either way the answer is the same).
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        for piece in [&b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r"[..], b"\n"] {
            s.write_all(piece).unwrap();
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 200 "), "{out}");
        // Slow: a request that never ends holds its connection, and meanwhile another client
        // is served (a server taking clients one at a time would not answer for an hour).
        let mut slow = TcpStream::connect(addr).unwrap();
        slow.write_all(b"GET /metr").unwrap();
        assert!(exchange(addr, GET).starts_with("HTTP/1.1 200 "));
        drop(slow);
        drop(srv);
        assert!(TcpStream::connect(addr).is_err(), "stopped when dropped");
    }

    /// A request that never ends is timed out (408) at the server's request timeout.
    #[test]
    fn a_request_that_never_ends_is_timed_out() {
        let srv = MetricsServer::start(
            "127.0.0.1:0".parse().unwrap(),
            limits(Duration::from_millis(200), 2),
            ok_render,
        )
        .unwrap();
        let mut slow = TcpStream::connect(srv.local_addr()).unwrap();
        slow.write_all(b"GET /metr").unwrap();
        slow.set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let mut out = String::new();
        let _ = slow.read_to_string(&mut out);
        assert!(out.starts_with("HTTP/1.1 408 "), "{out}");
    }

    /// Connections past the limit are turned away at once (503, or closed before it is read);
    /// once the slots are given back, the next is served. The two connections that hold the
    /// slots are known to hold them: each is inside `render` when the third comes.
    #[test]
    fn connections_past_the_limit_are_turned_away() {
        use std::sync::mpsc;
        use std::sync::Mutex;
        let hold = Arc::new(AtomicBool::new(true));
        let (entered_tx, entered) = mpsc::channel::<()>();
        let (release, release_rx) = mpsc::channel::<()>();
        let (entered_tx, release_rx) = (Mutex::new(entered_tx), Arc::new(Mutex::new(release_rx)));
        let h = hold.clone();
        let render = move || {
            if h.load(Ordering::SeqCst) {
                let _ = entered_tx.lock().unwrap().send(());
                let _ = release_rx.lock().unwrap().recv();
            }
            ok_render()
        };
        let srv =
            MetricsServer::start("127.0.0.1:0".parse().unwrap(), limits(NEVER, 2), render).unwrap();
        let addr = srv.local_addr();
        // The server's first two connections: each takes a slot, then waits in `render`.
        let holders: Vec<_> = (0..2)
            .map(|_| std::thread::spawn(move || exchange(addr, GET)))
            .collect();
        for _ in 0..2 {
            entered
                .recv_timeout(Duration::from_secs(120))
                .expect("a request in render");
        }
        let out = exchange(addr, GET);
        assert!(out.is_empty() || out.starts_with("HTTP/1.1 503 "), "{out}");
        hold.store(false, Ordering::SeqCst);
        for _ in 0..2 {
            release.send(()).unwrap();
        }
        for t in holders {
            assert!(t.join().unwrap().starts_with("HTTP/1.1 200 "));
        }
        // Their threads give the slots back as they end: turned away until then, at most.
        let mut tries = 0;
        let out = loop {
            let out = exchange(addr, GET);
            tries += 1;
            if !(out.is_empty() || out.starts_with("HTTP/1.1 503 ")) || tries == 10_000 {
                break out;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(
            out.starts_with("HTTP/1.1 200 "),
            "{out} after {tries} tries"
        );
    }
}
