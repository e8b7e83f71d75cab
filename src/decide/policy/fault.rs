//! Why a policy file cannot be used, typed: `report/text/policy.rs` words it. Where it is (file,
//! line, column, key) travels beside it, in `loading`'s error.

/// What is wrong at a key of a policy file.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// The TOML parser's or serde's own words: a syntax error, an unknown key or variant.
    Toml {
        said: String,
    },
    /// A value of another kind than its key takes (`element`, from 1, in an array).
    WrongKind {
        key: String,
        wanted: TomlKind,
        found: TomlKind,
        element: Option<usize>,
    },
    /// A threshold that is not a positive number (or under `floor`, when above 0).
    NotPositive {
        value: f64,
        floor: f64,
    },
    /// An `advise_*` threshold above its `move_*` one.
    AdviseAboveMove {
        advise_key: &'static str,
        advise: f64,
        move_key: &'static str,
        move_: f64,
    },
    /// `advisory.max_age_hours` below zero or not a number.
    NegativeAge {
        hours: f64,
    },
    /// A mount kind in two of the `mounts` lists.
    MountInTwoLists {
        kind: String,
        first: &'static str,
    },
    /// A pattern or path holding a control character.
    ControlCharacter {
        text: String,
        character: char,
        is_pattern: bool,
    },
    InvalidGlob {
        pattern: String,
        error: String,
    },
    EmptyDestination,
    /// `~user/...`, another user's home.
    OtherUsersHome {
        destination: String,
    },
}

/// The kinds of TOML value, as a key takes them and as a file holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TomlKind {
    Table,
    ArrayOfTables,
    Array,
    Float,
    Integer,
    String,
    Boolean,
    Datetime,
}
