//! nDPI's categories: the snake-case names data files use and the names nDPI prints.
//!
//! nDPI's lists name a category by its enum (`NDPI_PROTOCOL_CATEGORY_SOCIAL_NETWORK`); the data
//! files extracted from them (`data/app_hosts.csv`) write the enum's suffix in lower case
//! (`social_network`). `ndpiReader` prints another name (`ndpi_category_get_name`:
//! `SocialNetwork`), and that is what flow records carry, so they compare with nDPI's.
//!
//! The table is nDPI's enum in order (the five `CUSTOM_CATEGORY_*` slots left out). Checked
//! against nDPI's own output, `../shared/corpus/flows.csv`: for every flow whose host name the
//! shipped list gives nDPI's application, the list's category mapped here is the `category` nDPI
//! printed (test `categories_agree_with_ndpi` in `tests/hosts_corpus.rs`; DNS flows excepted, as
//! nDPI prints the DNS master's category, `Network`, for them). The names nDPI printed in
//! `flows.csv` are marked `seen` below; the others are nDPI's `ndpi_category_get_name`
//! spelling as read in its source.

/// (data files' name, nDPI's printed name), in nDPI's enum order.
pub const CATEGORIES: &[(&str, &str)] = &[
    ("unspecified", "Unspecified"),
    ("media", "Media"),                  // seen
    ("vpn", "VPN"),                      // seen
    ("mail", "Email"),                   // seen
    ("data_transfer", "DataTransfer"),   // seen
    ("web", "Web"),                      // seen
    ("social_network", "SocialNetwork"), // seen
    ("download_ft", "Download"),         // seen
    ("game", "Game"),                    // seen
    ("chat", "Chat"),                    // seen
    ("voip", "VoIP"),                    // seen
    ("database", "Database"),            // seen
    ("remote_access", "RemoteAccess"),   // seen
    ("cloud", "Cloud"),                  // seen
    ("network", "Network"),              // seen
    ("collaborative", "Collaborative"),  // seen
    ("rpc", "RPC"),                      // seen
    ("streaming", "Streaming"),          // seen
    ("system_os", "System"),             // seen
    ("sw_update", "SoftwareUpdate"),     // seen
    ("music", "Music"),                  // seen
    ("video", "Video"),                  // seen
    ("shopping", "Shopping"),            // seen
    ("productivity", "Productivity"),
    ("file_sharing", "FileSharing"),
    ("connectivity_check", "ConnCheck"), // seen
    ("iot_scada", "IoT-Scada"),          // seen
    ("virtual_assistant", "VirtAssistant"),
    ("cybersecurity", "Cybersecurity"), // seen
    ("adult_content", "AdultContent"),  // seen
    ("mining", "Mining"),               // seen
    ("malware", "Malware"),             // seen
    ("advertisement", "Advertisement"), // seen
    ("banned_site", "Banned_Site"),
    ("site_unavailable", "Site_Unavailable"),
    ("allowed_site", "Allowed_Site"),
    ("antimalware", "Antimalware"),
    ("crypto_currency", "Crypto_Currency"), // seen
    ("gambling", "Gambling"),               // seen
    ("health", "Health"),
];

/// nDPI's printed name of a category given as data files write it (`social_network` →
/// `SocialNetwork`); exact, lower case. None for a name nDPI does not have.
pub fn ndpi_category(snake: &str) -> Option<&'static str> {
    CATEGORIES
        .iter()
        .find(|(s, _)| *s == snake)
        .map(|(_, display)| *display)
}

/// A category as an operator may write it: the data files' name or nDPI's printed one, in any
/// case (`social_network`, `SocialNetwork`, `socialnetwork`, `IoT-Scada`). Returns nDPI's
/// printed name; None for a name nDPI does not have.
pub fn parse(name: &str) -> Option<&'static str> {
    let name = name.trim();
    CATEGORIES
        .iter()
        .find(|(s, d)| s.eq_ignore_ascii_case(name) || d.eq_ignore_ascii_case(name))
        .map(|(_, display)| *display)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_both_ways_and_are_unique() {
        assert_eq!(ndpi_category("social_network"), Some("SocialNetwork"));
        assert_eq!(ndpi_category("sw_update"), Some("SoftwareUpdate"));
        assert_eq!(ndpi_category("download_ft"), Some("Download"));
        assert_eq!(ndpi_category("connectivity_check"), Some("ConnCheck"));
        assert_eq!(ndpi_category("mail"), Some("Email"));
        assert_eq!(
            ndpi_category("SocialNetwork"),
            None,
            "exact snake case only"
        );
        assert_eq!(ndpi_category("bogus"), None);
        assert_eq!(parse("SocialNetwork"), Some("SocialNetwork"));
        assert_eq!(parse(" iot-scada "), Some("IoT-Scada"));
        assert_eq!(parse("VIDEO"), Some("Video"));
        assert_eq!(parse(""), None);
        for (i, (s, d)) in CATEGORIES.iter().enumerate() {
            for (t, e) in &CATEGORIES[i + 1..] {
                assert_ne!(s, t);
                assert_ne!(d, e);
            }
            assert_eq!(parse(s), Some(*d));
            assert_eq!(parse(d), Some(*d));
        }
    }
}
