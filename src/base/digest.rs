//! The two encodings package managers name their cache entries with: base64 digests in lock
//! integrities (`sha512-<base64>`) and the lowercase hex the caches file them under.

/// Standard base64 with padding, as integrities are written.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let text = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// Bytes as lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_of_base64(text: &str) -> Option<String> {
        base64_decode(text)
            .filter(|bytes| !bytes.is_empty())
            .map(|bytes| hex(&bytes))
    }

    #[test]
    fn base64_digests_read_as_hex() {
        assert_eq!(
            hex_of_base64("qZk+NkcGgWq6PiVxeFDCbJzQ2J0=").as_deref(),
            Some("a9993e364706816aba3e25717850c26c9cd0d89d")
        );
        assert_eq!(hex_of_base64("not base64!"), None);
    }
}
