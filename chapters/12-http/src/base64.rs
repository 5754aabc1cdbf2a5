//! Base64 (RFC 4648): how bytes travel in JSON strings. `blob` contents use
//! it, and so do the cursors of `paging.rs`.

// ANCHOR: base64
const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648, padded with `=`): how `blob` carries bytes in
/// JSON, and how this server makes its cursors.
pub fn encode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let byte = |i: usize| u32::from(group.get(i).copied().unwrap_or(0));
        let bits = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        for i in 0..4 {
            if i <= group.len() {
                let six = (bits >> (18 - 6 * i)) & 0x3f;
                text.push(char::from(BASE64_ALPHABET[six as usize]));
            } else {
                text.push('=');
            }
        }
    }
    text
}
// ANCHOR_END: base64

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn base64_matches_the_rfc_4648_examples() {
        let examples = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (bytes, encoded) in examples {
            assert_eq!(encode(bytes.as_bytes()), encoded, "encode({bytes:?})");
        }
        assert_eq!(encode(&[0x00, 0xff, 0xfe, 0x01, 0x02]), "AP/+AQI=");
    }
}
