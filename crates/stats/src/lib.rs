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
pub mod model;
pub mod nb;

pub use classes::{coarse, Coarse};
pub use features::{Early, SizeMode, ATOZ_NAMES, SPLT_CAP};
pub use model::{Model, ModelError};

use std::sync::OnceLock;
use wirespeed_classify::Label;

/// The model shipped with the project (`models/default.wsm`, trained from ../shared/corpus by the
/// command in the README), built into the binary so it works from any directory.
pub static DEFAULT_MODEL_BYTES: &[u8] = include_bytes!("../../../models/default.wsm");

/// A model ready for the engine: the model and a [`Label`] per class, with static lifetime.
#[derive(Debug)]
pub struct Loaded {
    /// The model.
    pub model: Model,
    /// Labels, one per class (app = master = the class name, category from training).
    pub labels: Vec<Label>,
    /// Coarse class of each class.
    pub coarse: Vec<Coarse>,
}

impl Loaded {
    /// Load a model for the lifetime of the process (its labels are referenced from every flow
    /// verdict). Loaded once per run, so the memory is not a leak that grows.
    pub fn leak(model: Model) -> &'static Loaded {
        let labels = model
            .classes
            .iter()
            .map(|c| {
                let app: &'static str = Box::leak(c.app.clone().into_boxed_str());
                Label {
                    app,
                    master: app,
                    category: Box::leak(c.category.clone().into_boxed_str()),
                }
            })
            .collect();
        let coarse = model.classes.iter().map(|c| coarse(&c.app)).collect();
        Box::leak(Box::new(Loaded {
            model,
            labels,
            coarse,
        }))
    }

    /// Load a model file's bytes.
    pub fn from_bytes(b: &[u8]) -> Result<&'static Loaded, ModelError> {
        Ok(Loaded::leak(Model::from_bytes(b)?))
    }
}

/// The shipped model, loaded on first use; None when the build has none (an empty placeholder).
pub fn default_model() -> Option<&'static Loaded> {
    static M: OnceLock<Option<&'static Loaded>> = OnceLock::new();
    *M.get_or_init(|| Loaded::from_bytes(DEFAULT_MODEL_BYTES).ok())
}

/// The statistical verdict kept per flow: class index and confidence in 1/65535. 4 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatsResult {
    /// Class index + 1; 0 = the model answered "unknown"; `u16::MAX` = not asked yet.
    pub class: u16,
    /// Confidence × 65535.
    pub score: u16,
}
