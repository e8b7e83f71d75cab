//! The assessments the commands ask for, assembled from the layers below: the shared
//! measure-model-decide `pipeline`, the hook's cached `advisory`, and the `survey` of a folder.

pub mod advisory;
pub mod pipeline;
pub mod survey;
