//! The run's inspection rules ([`DpiRules`]): the inspectors' candidate tables, the byte
//! signatures, the payload search patterns, and the label id of every answer; built once per run
//! and shared read-only by its workers.

use crate::proto::sig::SigSet;
use crate::schedule::Choice;
use crate::{matcher, proto, Label, LabelId, Labels, StateArea};

/// Why a run's inspection rules could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// The signature text (the message names its line).
    Signatures(String),
    /// The pattern text (the message names its line).
    Patterns(String),
    /// The labels would not fit the registry.
    Labels(String),
}

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RulesError::Signatures(m) | RulesError::Patterns(m) | RulesError::Labels(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for RulesError {}

/// What payload inspection knows in one run, shared read-only by its workers: the inspectors'
/// candidate tables, the byte signatures (built-in and the run's files), the payload search
/// patterns, and the run's label id of every label an inspector or signature can answer with.
/// Nothing of it is global: two runs in one process each inspect with their own.
pub struct DpiRules {
    pub(crate) choice: Choice,
    pub(crate) sigs: SigSet,
    /// The label of each signature, in file order.
    pub(crate) sig_ids: Box<[LabelId]>,
    pub(crate) matcher: Option<matcher::Matcher>,
    /// Per inspector (registry order), the id of each of its `labels`.
    pub(crate) ids: Box<[Box<[LabelId]>]>,
}

impl std::fmt::Debug for DpiRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpiRules")
            .field("inspectors", &self.ids.len())
            .field("signatures", &self.sigs.len())
            .field("patterns", &self.matcher.is_some())
            .finish()
    }
}

impl DpiRules {
    /// The built-in inspectors and signatures, no search patterns; labels interned in `labels`.
    pub fn builtin(labels: &mut Labels) -> Result<Self, RulesError> {
        DpiRules::new(labels, None, None)
    }

    /// The built-in inspectors and signatures, followed by `signatures` (a file's text in the
    /// format of `signatures.txt`: tried after the built-in ones), and the payload search
    /// `patterns` (a pattern file's text, [`matcher`]). Errors name the line of the text given.
    pub fn new(
        labels: &mut Labels,
        signatures: Option<&str>,
        patterns: Option<&str>,
    ) -> Result<Self, RulesError> {
        let sigs = match signatures {
            Some(user) => {
                // Checked alone first, so errors give the user's line numbers.
                SigSet::parse(user, proto::sig::SEED).map_err(RulesError::Signatures)?;
                SigSet::parse(
                    &format!("{}\n{user}", proto::sig::BUILTIN),
                    proto::sig::SEED,
                )
                .map_err(RulesError::Signatures)?
            }
            None => SigSet::parse(proto::sig::BUILTIN, proto::sig::SEED)
                .map_err(RulesError::Signatures)?,
        };
        let label_err = |e: wirespeed_classify::LabelError| RulesError::Labels(e.to_string());
        let sig_ids = sigs
            .sigs()
            .iter()
            .map(|s| labels.intern(&s.master, &s.master, &s.category, Default::default()))
            .collect::<Result<_, _>>()
            .map_err(label_err)?;
        let ids = proto::REGISTRY
            .iter()
            .map(|ins| ins.labels.iter().map(|l| labels.intern_label(l)).collect())
            .collect::<Result<_, _>>()
            .map_err(label_err)?;
        let matcher = patterns
            .map(matcher::Matcher::new)
            .transpose()
            .map_err(RulesError::Patterns)?;
        Ok(DpiRules {
            choice: Choice::new(),
            sigs,
            sig_ids,
            matcher,
            ids,
        })
    }

    /// The run's byte signatures.
    pub fn signatures(&self) -> &SigSet {
        &self.sigs
    }

    /// The run's payload search patterns, if it has any.
    pub fn matcher(&self) -> Option<&matcher::Matcher> {
        self.matcher.as_ref()
    }

    /// The label id of inspector `i`'s answer `l`, with the inspector's `state`. A label
    /// missing from the inspector's `labels` (the property tests forbid it) is looked for among
    /// every inspector's, and is Unknown if none has it.
    pub(crate) fn id(&self, i: usize, l: &'static Label, state: &StateArea) -> LabelId {
        if std::ptr::eq(l, &proto::sig::BY_SIGNATURE) {
            let k = proto::sig::chosen(state);
            return self.sig_ids.get(k).copied().unwrap_or(LabelId::UNKNOWN);
        }
        // The inspector's own list, by address: a few pointer compares.
        let own = proto::REGISTRY.get(i).and_then(|ins| {
            let k = ins.labels.iter().position(|x| std::ptr::eq(*x, l))?;
            self.ids.get(i)?.get(k).copied()
        });
        own.unwrap_or_else(|| self.id_by_name(l))
    }

    /// The slow path of [`DpiRules::id`]: a label no list holds by address, by its names.
    #[cold]
    pub(crate) fn id_by_name(&self, l: &Label) -> LabelId {
        proto::REGISTRY
            .iter()
            .zip(self.ids.iter())
            .find_map(|(ins, ids)| {
                let k = ins.labels.iter().position(|x| **x == *l)?;
                ids.get(k).copied()
            })
            .unwrap_or(LabelId::UNKNOWN)
    }

    /// The id of inspector `i`'s generic (first) label.
    pub(crate) fn generic(&self, i: usize) -> Option<LabelId> {
        self.ids.get(i).and_then(|ids| ids.first().copied())
    }
}
