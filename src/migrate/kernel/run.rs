//! One run of `migrate`: what every step of every operation works with, decided once.

use super::engine::destination;
use super::engine::staging::{self, Elsewhere, Staging};
use super::options::{Options, Ui};
use crate::base::error::Result;
use crate::host::HostEnv;
use crate::host::location;
use std::path::{Path, PathBuf};

/// The environment, the person, what was asked, and where the repository goes.
pub struct Run<'a> {
    pub env: &'a HostEnv,
    pub ui: &'a dyn Ui,
    pub args: &'a Options,
    /// The repository's staging folder beside the destination; it knows the source.
    pub staging: Staging,
    pub destination: PathBuf,
    /// Interrupted migrations of this source to other destinations.
    pub elsewhere: Vec<Elsewhere>,
}

impl<'a> Run<'a> {
    /// The source (refused when it is a kernel file system), its destination (`--to`, where an
    /// earlier run moved it, or under `default_root`), and the staging folders found for it.
    pub fn start(
        env: &'a HostEnv,
        args: &'a Options,
        ui: &'a dyn Ui,
        default_root: Option<&Path>,
    ) -> Result<Self> {
        let source = location::canonical_dir(&args.path)?;
        destination::refuse_kernel_interface(env, &source)?;
        let destination = destination::chosen(env, args.to.as_deref(), &source, default_root)?;
        let staging = Staging::new(&source, &destination);
        let elsewhere = staging::elsewhere_than(&staging, &destination, default_root);
        Ok(Self {
            env,
            ui,
            args,
            staging,
            destination,
            elsewhere,
        })
    }

    pub fn source(&self) -> &Path {
        self.staging.source()
    }
}
