//! Reasons travel typed, as enums with their data; only `report/text` words them, by
//! implementing [`Worded`]. In JSON a reason keeps the key it always had, holding its sentence,
//! and gains a sibling `<key>_kind` holding its kind and data, which a script can branch on
//! (docs/json.md lists the kinds).

use serde::ser::{Serialize, SerializeMap, Serializer};

/// The sentence for a reason. Implemented in `report/text`, the one place reasons become words.
pub trait Worded {
    fn sentence(&self) -> String;

    /// Its wordings after the level in a one-line message (`wsl-place: moved (...)`), longest
    /// first, so a line with a budget takes the first that fits.
    fn briefs(&self) -> Vec<String> {
        vec![self.sentence()]
    }
}

/// The JSON keys a reason goes under: its sentence under `KEY`, itself under `KIND_KEY`.
pub trait Keyed {
    const KEY: &'static str;
    const KIND_KEY: &'static str;
}

/// An optional reason, for a `#[serde(flatten)]` field: `KEY` holds its sentence (null when
/// there is none), `KIND_KEY` its kind and data (absent when there is none). A field whose key
/// was absent when empty adds `skip_serializing_if = "Noted::is_none"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noted<R>(pub Option<R>);

impl<R> Default for Noted<R> {
    fn default() -> Self {
        Noted(None)
    }
}

impl<R> Noted<R> {
    pub fn as_ref(&self) -> Option<&R> {
        self.0.as_ref()
    }

    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }
}

impl<R: Worded + Keyed + Serialize> Serialize for Noted<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(R::KEY, &self.0.as_ref().map(Worded::sentence))?;
        if let Some(reason) = &self.0 {
            map.serialize_entry(R::KIND_KEY, reason)?;
        }
        map.end()
    }
}

/// A reason that is always there, for a `#[serde(flatten)]` field: `KEY` holds its sentence,
/// `KIND_KEY` its kind and data.
#[derive(Debug, Clone, PartialEq)]
pub struct Said<R>(pub R);

impl<R: Worded> Said<R> {
    pub fn sentence(&self) -> String {
        self.0.sentence()
    }
}

impl<R: Worded + Keyed + Serialize> Serialize for Said<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry(R::KEY, &self.0.sentence())?;
        map.serialize_entry(R::KIND_KEY, &self.0)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Why {
        Late { by_ms: u64 },
    }

    impl Keyed for Why {
        const KEY: &'static str = "why";
        const KIND_KEY: &'static str = "why_kind";
    }

    impl Worded for Why {
        fn sentence(&self) -> String {
            let Why::Late { by_ms } = self;
            format!("late by {by_ms} ms")
        }
    }

    #[derive(serde::Serialize)]
    struct Holder {
        #[serde(flatten)]
        kept: Noted<Why>,
        #[serde(flatten, skip_serializing_if = "Noted::is_none")]
        dropped: Noted<Why>,
    }

    #[test]
    fn a_reason_is_its_sentence_beside_its_kind_and_an_absent_one_null_or_left_out() {
        let none = Holder {
            kept: Noted(None),
            dropped: Noted(None),
        };
        assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"why":null}"#);
        let some = Holder {
            kept: Noted(Some(Why::Late { by_ms: 3 })),
            dropped: Noted(None),
        };
        assert_eq!(
            serde_json::to_string(&some).unwrap(),
            r#"{"why":"late by 3 ms","why_kind":{"kind":"late","by_ms":3}}"#
        );
    }
}
