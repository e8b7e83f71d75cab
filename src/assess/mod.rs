//! The assessments the commands ask for, assembled from the layers below: the shared
//! measure-model-decide `pipeline`, the hook's cached `advisory` and its one line (`hook_line`), and the `survey` of a folder.

pub(crate) mod advisory;
pub(crate) mod hook_line;
pub mod pipeline;
pub(crate) mod survey;
