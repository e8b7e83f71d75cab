//! Text that Windows programs print, in the encodings they print it in: UTF-16LE (`cmd.exe /U`),
//! and the code pages a console uses without it (the ANSI page 1252 and the OEM page 437 of
//! Western Windows). Bytes alone cannot say which single-byte page they are in, so every
//! reading is offered and the caller picks the one that names folders that exist.

/// A way to read Windows' bytes as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf16Le,
    Utf8,
    Windows1252,
    Cp437,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf8 => "utf-8",
            Encoding::Windows1252 => "windows-1252",
            Encoding::Cp437 => "cp437",
        }
    }
}

/// Every reading of `bytes` that makes sense, likeliest first: UTF-16LE alone when it is that
/// (a NUL byte and an even length: no text in a code page holds NUL), one reading when the
/// bytes are ASCII, else UTF-8 where valid, then the ANSI and the OEM page.
pub fn readings(bytes: &[u8]) -> Vec<(Encoding, String)> {
    if let Some(text) = utf16le(bytes) {
        return vec![(Encoding::Utf16Le, text)];
    }
    if bytes.is_ascii() {
        return vec![(Encoding::Utf8, String::from_utf8_lossy(bytes).into_owned())];
    }
    let mut found = Vec::new();
    if let Ok(text) = std::str::from_utf8(bytes) {
        found.push((Encoding::Utf8, text.to_string()));
    }
    found.push((Encoding::Windows1252, single_byte(bytes, &CP1252_HIGH)));
    found.push((Encoding::Cp437, single_byte(bytes, &CP437_HIGH)));
    found
}

/// `bytes` as UTF-16LE, when they are: an even length, some NUL byte, and no unpaired
/// surrogate; a leading byte-order mark is dropped.
pub fn utf16le(bytes: &[u8]) -> Option<String> {
    if !bytes.len().is_multiple_of(2) || !bytes.contains(&0) {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    let text = String::from_utf16(&units).ok()?;
    Some(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}

fn single_byte(bytes: &[u8], high: &[char; 128]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0..=0x7f => char::from(b),
            _ => high[usize::from(b - 0x80)],
        })
        .collect()
}

/// Windows-1252 from 0x80: Latin-1 but for 0x80-0x9f; its five unassigned bytes read as the
/// C1 controls, as Windows' own conversion reads them.
const CP1252_HIGH: [char; 128] = {
    let c1 = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    let mut table = ['\0'; 128];
    let mut i = 0;
    while i < 128 {
        table[i] = if i < 32 {
            c1[i]
        } else {
            match char::from_u32(0x80 + i as u32) {
                Some(c) => c,
                None => '\u{fffd}',
            }
        };
        i += 1;
    }
    table
};

/// Code page 437 (the OEM page of US Windows consoles) from 0x80.
const CP437_HIGH: [char; 128] = [
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å', //
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ', //
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»', //
    '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐', //
    '└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧', //
    '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀', //
    'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩', //
    '≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{a0}',
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_reads_right_in_each_encoding_windows_prints_it_in() {
        let utf16: Vec<u8> = "C:\\Users\\Zoë\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(
            readings(&utf16),
            vec![(Encoding::Utf16Le, "C:\\Users\\Zoë\r\n".to_string())]
        );
        let ansi = readings(b"C:\\Users\\Zo\xeb");
        assert_eq!(
            ansi[0],
            (Encoding::Windows1252, "C:\\Users\\Zoë".to_string())
        );
        let oem = readings(b"C:\\Users\\Zo\x89");
        assert_eq!(oem[1], (Encoding::Cp437, "C:\\Users\\Zoë".to_string()));
        assert_eq!(oem[0].1, "C:\\Users\\Zo‰");
        assert_eq!(readings(b"C:\\Users\\me").len(), 1);
        assert_eq!(readings("Zoë".as_bytes())[0].0, Encoding::Utf8);
    }
}
