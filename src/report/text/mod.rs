//! Wording shared by the formats: the cells, lines and phrases that the human, markdown and
//! GitHub renderings of one report lay out differently.

pub mod migrate;
pub mod probe;
pub mod survey;
