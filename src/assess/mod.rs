//! The assessments the commands ask for, assembled from the layers below: the shared
//! measure-model-decide `pipeline`, the hook's cached `advisory`, and the `survey` of a folder.

pub(crate) mod advisory;
pub(crate) mod nudge;
pub mod pipeline;
pub(crate) mod survey;
