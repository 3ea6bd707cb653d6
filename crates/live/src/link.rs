//! What a live run says of its links: "link down" and "link up again", each once per change,
//! from the interface's real state.
//!
//! Issue 33: the run once said "link up again" when a ring block arrived after the link went
//! down, and a block filled before it went down is handed over after (at its retire timeout),
//! so the line came right after "link down" while the link was still down, and nothing when it
//! came back. Now packets say nothing of the link: [`LinkWatch`] is fed observations of the
//! interface's state (up with its carrier, read every tick by [`crate::sys::LinkProbe`]) and of
//! ENETDOWN errors the capture sockets reported since the last tick (a link that went down and
//! came back between two ticks is still reported, down then up). It is a pure state machine, so
//! its tests need no link.

/// A change of a link's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkEvent {
    /// The link went down (or lost its carrier).
    Down,
    /// The link is up with its carrier again.
    Up,
}

/// One interface's state as the run last reported it.
#[derive(Clone, Debug)]
pub struct LinkWatch {
    up: bool,
}

impl Default for LinkWatch {
    fn default() -> Self {
        LinkWatch::new()
    }
}

impl LinkWatch {
    /// A link taken as up: the run starts once its sockets are bound (a link down at the start
    /// is reported at the first observation).
    pub fn new() -> LinkWatch {
        LinkWatch { up: true }
    }

    /// Whether the link is up as last reported.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// Feed one tick's observations: `went_down`, whether a capture socket reported the link
    /// going down (ENETDOWN) since the last tick; `up_now`, whether the interface is up with
    /// its carrier now (None when it could not be read: nothing is concluded). The changes to
    /// report, in order: at most a `Down` then an `Up`.
    pub fn observe(&mut self, went_down: bool, up_now: Option<bool>) -> Vec<LinkEvent> {
        let mut out = Vec::new();
        if went_down && self.up {
            self.up = false;
            out.push(LinkEvent::Down);
        }
        match up_now {
            Some(true) if !self.up => {
                self.up = true;
                out.push(LinkEvent::Up);
            }
            Some(false) if self.up => {
                self.up = false;
                out.push(LinkEvent::Down);
            }
            _ => {}
        }
        out
    }

    /// The status line of `e` on `iface`.
    pub fn line(iface: &str, e: LinkEvent) -> String {
        match e {
            LinkEvent::Down => format!("live: {iface}: link down, waiting for it to come back"),
            LinkEvent::Up => format!("live: {iface}: link up again"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LinkEvent::{Down, Up};

    /// The sequence: the socket reports ENETDOWN, then ticks pass while the link stays
    /// down (ring blocks filled before may arrive meanwhile: they are not observations), then
    /// it comes back. One "down", nothing while down, one "up" when it is up.
    #[test]
    fn down_is_said_once_and_up_only_when_it_is_up() {
        let mut w = LinkWatch::new();
        assert_eq!(w.observe(false, Some(true)), vec![]);
        assert_eq!(w.observe(true, Some(false)), vec![Down]);
        for _ in 0..5 {
            assert_eq!(w.observe(false, Some(false)), vec![]);
        }
        // Another worker's socket reports the same event late: no news.
        assert_eq!(w.observe(true, Some(false)), vec![]);
        assert!(!w.is_up());
        assert_eq!(w.observe(false, Some(true)), vec![Up]);
        assert_eq!(w.observe(false, Some(true)), vec![]);
        assert!(w.is_up());
    }

    /// Down and up again between two ticks: the sockets' ENETDOWN says it happened.
    #[test]
    fn a_flap_between_ticks_is_reported_down_then_up() {
        let mut w = LinkWatch::new();
        assert_eq!(w.observe(true, Some(true)), vec![Down, Up]);
        assert!(w.is_up());
    }

    /// Carrier lost without ENETDOWN (the peer of a veth went down, a cable pulled): down by
    /// the state alone; a state that cannot be read changes nothing.
    #[test]
    fn the_state_alone_is_enough_and_unknown_changes_nothing() {
        let mut w = LinkWatch::new();
        assert_eq!(w.observe(false, None), vec![]);
        assert_eq!(w.observe(false, Some(false)), vec![Down]);
        assert_eq!(w.observe(false, None), vec![]);
        assert_eq!(w.observe(true, None), vec![]);
        assert_eq!(w.observe(false, Some(true)), vec![Up]);
        assert_eq!(w.observe(true, None), vec![Down]);
        assert_eq!(w.observe(false, None), vec![]);
        assert!(!w.is_up());
    }

    /// The probe reads an interface that exists (loopback, whatever its state) and refuses
    /// one that does not, or a name the kernel could not hold.
    #[test]
    fn the_probe_reads_real_interfaces() {
        let p = crate::sys::LinkProbe::new().unwrap();
        assert!(p.is_up("lo").is_ok());
        assert!(p.is_up("wsnone0").is_err());
        assert!(p.is_up("a-name-far-too-long").is_err());
        assert!(p.is_up("l\0o").is_err());
    }

    #[test]
    fn lines() {
        assert_eq!(
            LinkWatch::line("eth0", Down),
            "live: eth0: link down, waiting for it to come back"
        );
        assert_eq!(LinkWatch::line("eth0", Up), "live: eth0: link up again");
    }
}
