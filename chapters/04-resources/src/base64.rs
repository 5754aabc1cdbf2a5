//! Base64 (RFC 4648): how bytes travel in JSON strings. `blob` contents use
//! it, and so do the cursors of `paging.rs`.

// ANCHOR: base64
const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648, padded with `=`): how `blob` carries bytes in
/// JSON, and how this server makes its cursors.
pub fn encode(bytes: &[u8]) -> String {
    // TODO(ch04/base64): turn each group of 3 bytes (24 bits) into 4
    // characters of BASE64_ALPHABET (6 bits each). A last group of 1 or 2
    // bytes is padded with zero bits and gives 2 or 3 characters, then `=`
    // up to 4.
    todo!(
        "ch04/base64: turn each group of 3 bytes (24 bits) into 4 characters of BASE64_ALPHABET (6 bits each). A last group of 1 or 2 bytes is padded with zero bits and gives 2 or 3 characters, then `=` up to 4."
    )
    // END(ch04/base64)
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
