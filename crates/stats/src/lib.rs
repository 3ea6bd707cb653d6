//! Statistical flow classification from a flow's first packets (seeds 000 and 002): early-flow
//! features kept in every flow slot ([`features`]), Naive Bayes over signed packet sizes
//! ([`nb`]), C4.5 decision trees ([`c45`]), the model file ([`model`]), coarse classes
//! ([`classes`]) and cross-validation by capture ([`eval`]).
//!
//! The per-packet cost is [`Early::push`] (a few stores into the slot). A model is asked once
//! per flow, when it reaches P packets or ends before; scoring allocates nothing.
// `deny`, not `forbid`: one function (`nb::sse2`) calls SSE2 intrinsics, see its comment.
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod c45;
pub mod classes;
pub mod csv;
pub mod eval;
pub mod features;
pub mod link;
pub mod model;
pub mod nb;

pub use classes::{coarse, Coarse};
pub use features::{Early, SizeMode, ATOZ_NAMES, LEAD_CAP, SPLT_CAP};
pub use link::LinkModel;
pub use model::{Model, ModelError};

use wirespeed_classify::{LabelId, Labels};

/// The model shipped with the project (`models/default.wsm`, trained from ../shared/corpus by the
/// command in the README), built into the binary so it works from any directory.
pub static DEFAULT_MODEL_BYTES: &[u8] = include_bytes!("../../../models/default.wsm");

/// A model ready for a run: the model, the run's label id of each class, and each class's
/// coarse class. Owned by the run that loaded it (nothing global, nothing leaked): two runs in
/// one process may use different models.
#[derive(Debug)]
pub struct Loaded {
    /// The model.
    pub model: Model,
    /// Label of each class (app = master = the class name, category from training), interned
    /// in the run's registry.
    pub labels: Vec<LabelId>,
    /// Coarse class of each class.
    pub coarse: Vec<Coarse>,
}

impl Loaded {
    /// Ready `model` for a run whose labels are `labels`.
    pub fn new(model: Model, labels: &mut Labels) -> Result<Loaded, ModelError> {
        let ids = model
            .classes
            .iter()
            .map(|c| {
                labels
                    .intern(&c.app, &c.app, &c.category, Default::default())
                    .map_err(|e| ModelError(format!("class {:?}: {e}", c.app)))
            })
            .collect::<Result<_, _>>()?;
        let coarse = model.classes.iter().map(|c| coarse(&c.app)).collect();
        Ok(Loaded {
            model,
            labels: ids,
            coarse,
        })
    }

    /// Load a model file's bytes for a run whose labels are `labels`.
    pub fn from_bytes(b: &[u8], labels: &mut Labels) -> Result<Loaded, ModelError> {
        Loaded::new(Model::from_bytes(b)?, labels)
    }

    /// The shipped model for a run; None when the build has none (an empty placeholder).
    pub fn builtin(labels: &mut Labels) -> Option<Loaded> {
        Loaded::from_bytes(DEFAULT_MODEL_BYTES, labels).ok()
    }
}

/// The statistical verdict kept per flow: class index and confidence in 1/65535. 4 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatsResult {
    /// Class index + 1; 0 = the model answered "unknown"; `u16::MAX` = not asked yet.
    pub class: u16,
    /// Confidence × 65535.
    pub score: u16,
}
