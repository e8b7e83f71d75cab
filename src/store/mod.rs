//! What the tool keeps on disk between runs: the records of migrations and the accuracy record.

pub mod accuracy;
pub mod manifest;
pub mod moved;
pub mod snapshot;
pub mod sync_ops;
