//! What the integration tests and the examples reach inside the tool, and nothing else: the
//! layers are private to the crate, so that the compiler finds code no command reaches. Each
//! item here is one a test builds or parses as a value (a fixture mount table, a report to render,
//! a model constant a test prices with); everything else is tested through the binary.

pub mod assess {
    pub mod pipeline {
        pub use crate::assess::pipeline::{CheckReport, SCHEMA_VERSION};
    }
}

pub mod reason {
    pub use crate::base::reason::{Noted, Worded};
}

pub mod base {
    pub mod counts {
        pub use crate::base::counts::TreeCounts;
    }
    pub mod error {
        pub use crate::base::error::{ExitCode, Failure};
    }
    pub mod pathtext {
        pub use crate::base::pathtext::{escape_path, shell_quote, unescape_path};
    }
}

pub mod commands {
    pub mod cli {
        pub use crate::commands::cli::Cli;
    }
}

pub mod decide {
    pub mod observations {
        pub use crate::decide::observations::{Context, Observations};
    }
    pub mod policy {
        pub use crate::decide::policy::{Policy, PolicySource, Verdict, evaluate, load};
    }
}

pub mod host {
    pub use crate::host::{DEFAULT_AUTOMOUNT_ROOT, HostEnv};
    pub mod git {
        pub mod version {
            pub use crate::host::git::version::GitVersion;
        }
    }
    pub mod location {
        pub use crate::host::location::{MountTable, host, locate_in};
    }
    pub mod mounts {
        pub use crate::host::mounts::{MountKind, parse_bytes, unescape, unescape_bytes};
    }
}

pub mod measure {
    pub mod gitindex {
        pub use crate::measure::gitindex::{
            GitProblem, IndexSummary, RepoKind, discover, summarize, tracked_sample,
        };
    }
    pub mod gitsettings {
        pub use crate::measure::gitsettings::GitSettings;
    }
    pub mod probe {
        pub use crate::measure::probe::{Ops, ProbeReport, ProbeSet};
        pub mod measure {
            pub use crate::measure::probe::measure::RunSummary;
        }
    }
    pub mod scan {
        pub use crate::measure::scan::{
            Counts, DependencyKind, DependencyTree, DirFiles, Engine, GitReport, ScanOptions,
            ScanReport, scan_with,
        };
    }
    pub mod stats {
        pub use crate::measure::stats::{LstatSource, OpStats, ParallelLstat};
    }
}

pub mod model {
    pub use crate::model::{
        Compared, FILES_PER_PACKAGE, Figure, InstallFigures, InstallSource,
        PIP_DISTRIBUTIONS_PER_NAMED, PIP_EDITABLE_BUILD_STARTUPS, PIP_FILES_PER_DISTRIBUTION,
        PNPM_DIRS_PER_PACKAGE, PNPM_FILES_PER_PACKAGE, PY_TREE_DEPTH, Prediction, Range,
        RepoFigures,
    };
}

pub mod report {
    pub use crate::report::{Format, Style, render};
}
