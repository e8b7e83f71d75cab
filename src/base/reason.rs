//! Reasons travel typed, as enums with their data; only `report/text` words them, by
//! implementing [`Worded`]. In JSON a reason keeps the key it always had, holding its sentence,
//! and gains a sibling `<key>_kind` holding its kind and data, which a script can branch on
//! (docs/json.md lists the kinds).

use serde::ser::{Serialize, SerializeMap, Serializer};

/// The sentence for a reason. Implemented in `report/text`, the one place reasons become words.
pub trait Worded {
    fn sentence(&self) -> String;
}

/// The JSON keys a reason goes under: its sentence under `KEY`, itself under `KIND_KEY`.
pub trait Keyed {
    const KEY: &'static str;
    const KIND_KEY: &'static str;
}

/// An optional reason, for a `#[serde(flatten)]` field: `KEY` holds its sentence (null when
/// there is none), `KIND_KEY` its kind and data (absent when there is none).
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
}

/// [`Noted`] that leaves both keys out when there is no reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotedIfAny<R>(pub Option<R>);

impl<R> Default for NotedIfAny<R> {
    fn default() -> Self {
        NotedIfAny(None)
    }
}

impl<R> NotedIfAny<R> {
    pub fn as_ref(&self) -> Option<&R> {
        self.0.as_ref()
    }
}

impl<R: Worded + Keyed + Serialize> Serialize for NotedIfAny<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(_) => Noted(self.0.as_ref()).serialize(serializer),
            None => serializer.serialize_map(Some(0))?.end(),
        }
    }
}

impl<R: Keyed> Keyed for &R {
    const KEY: &'static str = R::KEY;
    const KIND_KEY: &'static str = R::KIND_KEY;
}

impl<R: Worded> Worded for &R {
    fn sentence(&self) -> String {
        (*self).sentence()
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
