//! Ed25519 key pairs that identify a party on a secure channel, and their
//! files.
//!
//! - A private key file (`NAME.key`) is the key pair as PKCS#8 in PEM
//!   (`-----BEGIN PRIVATE KEY-----`), the format `openssl genpkey
//!   -algorithm ed25519` writes.
//! - A public key file (`NAME.pub`) is the public key as a DER
//!   SubjectPublicKeyInfo in PEM (`-----BEGIN PUBLIC KEY-----`), the format
//!   `openssl pkey -pubout` writes.
//!
//! - A pre-shared secret file (`NAME.psk`, [`Psk`]) is 256 random bits as
//!   64 hex digits after a header line; each party derives its key pair
//!   from the secret and its role ([`KeyPair::from_psk`]), so a party
//!   cannot present the other's key.
//!
//! Nothing here prints key material: `Debug` of a [`KeyPair`] shows only
//! the public key's fingerprint.

use std::fmt;

use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{Ed25519KeyPair, KeyPair as _};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{PrivateKeyDer, SubjectPublicKeyInfoDer};
use zeroize::Zeroizing;

/// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the 32 key
/// bytes follow.
const SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// DER prefix of an Ed25519 PKCS#8 v1 private key (RFC 8410); the 32 seed
/// bytes follow.
const PKCS8_V1_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// The first line of a pre-shared secret file.
pub const PSK_HEADER: &str = "twofold-psk-v1";

/// Bytes of a pre-shared secret (256 bits).
const PSK_LEN: usize = 32;

/// Errors reading or making keys. No message contains key bytes.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The text is not a PEM public key of the expected kind.
    #[error("not an Ed25519 public key (expected `-----BEGIN PUBLIC KEY-----`, as `twofold keygen` writes in NAME.pub): {0}")]
    BadPublicKey(String),
    /// The text is not a PEM PKCS#8 Ed25519 private key.
    #[error("not an Ed25519 private key (expected `-----BEGIN PRIVATE KEY-----`, as `twofold keygen` writes in NAME.key): {0}")]
    BadPrivateKey(String),
    /// The text is not a pre-shared secret file of 256 random bits.
    #[error("not a twofold pre-shared secret file: {0}; only 256 random bits as `twofold keygen --psk -o NAME` writes them in NAME.psk are accepted (a passphrase is refused: anyone who reaches a listening party can test guesses of it offline)")]
    NotAPsk(&'static str),
    /// The operating system's random generator failed.
    #[error("the operating system's random number generator failed")]
    Random,
}

/// An Ed25519 public key: what a party pins to recognise its peer.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey([u8; 32]);

impl PublicKey {
    /// The key from its 32 raw bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> PublicKey {
        PublicKey(bytes)
    }

    /// The 32 raw key bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The DER SubjectPublicKeyInfo (what an RFC 7250 raw public key is on
    /// the wire).
    pub fn spki_der(&self) -> Vec<u8> {
        let mut der = SPKI_PREFIX.to_vec();
        der.extend_from_slice(&self.0);
        der
    }

    /// Reads a DER SubjectPublicKeyInfo of an Ed25519 key.
    pub fn from_spki_der(der: &[u8]) -> Result<PublicKey, KeyError> {
        match der.strip_prefix(&SPKI_PREFIX[..]) {
            Some(key) if key.len() == 32 => Ok(PublicKey(key.try_into().expect("32 bytes"))),
            _ => Err(KeyError::BadPublicKey(
                "not an Ed25519 SubjectPublicKeyInfo".into(),
            )),
        }
    }

    /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`), the only PEM
    /// block of the text.
    pub fn from_pem(text: &[u8]) -> Result<PublicKey, KeyError> {
        one_block(text).map_err(KeyError::BadPublicKey)?;
        let der = SubjectPublicKeyInfoDer::from_pem_slice(text)
            .map_err(|e| KeyError::BadPublicKey(e.to_string()))?;
        PublicKey::from_spki_der(der.as_ref())
    }

    /// The key as PEM text (`-----BEGIN PUBLIC KEY-----`).
    pub fn to_pem(&self) -> String {
        pem("PUBLIC KEY", &self.spki_der())
    }

    /// A short, printable name of the key: the first 8 bytes of its SHA-256,
    /// in hex (public; for messages).
    pub fn fingerprint(&self) -> String {
        let digest = ring::digest::digest(&ring::digest::SHA256, &self.0);
        digest.as_ref()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.fingerprint())
    }
}

impl fmt::Display for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key {}", self.fingerprint())
    }
}

/// An Ed25519 key pair: a party's identity on secure channels.
pub struct KeyPair {
    pkcs8: Zeroizing<Vec<u8>>,
    public: PublicKey,
}

impl fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyPair({})", self.public.fingerprint())
    }
}

impl Clone for KeyPair {
    fn clone(&self) -> Self {
        KeyPair {
            pkcs8: Zeroizing::new(self.pkcs8.to_vec()),
            public: self.public,
        }
    }
}

impl KeyPair {
    /// A fresh key pair from the operating system's randomness (written as
    /// PKCS#8 v1, the seed alone, as OpenSSL writes and reads it).
    pub fn generate() -> Result<KeyPair, KeyError> {
        let mut seed = Zeroizing::new([0u8; 32]);
        SystemRandom::new()
            .fill(&mut seed[..])
            .map_err(|_| KeyError::Random)?;
        KeyPair::from_seed(&seed)
    }

    /// The key pair of an Ed25519 seed.
    fn from_seed(seed: &[u8; 32]) -> Result<KeyPair, KeyError> {
        let mut der = Zeroizing::new(PKCS8_V1_PREFIX.to_vec());
        der.extend_from_slice(seed);
        KeyPair::from_pkcs8_der(&der)
    }

    /// The key pair from PKCS#8 DER (v1 or v2).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<KeyPair, KeyError> {
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
            .map_err(|e| KeyError::BadPrivateKey(e.to_string()))?;
        let public = PublicKey(
            pair.public_key()
                .as_ref()
                .try_into()
                .expect("Ed25519 public keys are 32 bytes"),
        );
        Ok(KeyPair {
            pkcs8: Zeroizing::new(der.to_vec()),
            public,
        })
    }

    /// Reads a PEM PKCS#8 private key (`-----BEGIN PRIVATE KEY-----`), the
    /// only PEM block of the text.
    pub fn from_pem(text: &[u8]) -> Result<KeyPair, KeyError> {
        one_block(text).map_err(KeyError::BadPrivateKey)?;
        match PrivateKeyDer::from_pem_slice(text) {
            Ok(PrivateKeyDer::Pkcs8(der)) => KeyPair::from_pkcs8_der(der.secret_pkcs8_der()),
            Ok(_) => Err(KeyError::BadPrivateKey("not a PKCS#8 key".into())),
            Err(e) => Err(KeyError::BadPrivateKey(e.to_string())),
        }
    }

    /// The private key as PEM text (`-----BEGIN PRIVATE KEY-----`); keep it
    /// secret.
    pub fn to_pem(&self) -> Zeroizing<String> {
        Zeroizing::new(pem("PRIVATE KEY", &self.pkcs8))
    }

    /// The key pair of the party playing `role` (a name both sides agree
    /// on, such as `a` or `b`) with the pre-shared secret `psk`:
    /// HKDF-SHA256 (salt `twofold psk v2`, info `twofold ed25519 seed` and
    /// the role) gives the Ed25519 seed, so each role has a key of its own.
    pub fn from_psk(psk: &Psk, role: &str) -> Result<KeyPair, KeyError> {
        let prk =
            ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, b"twofold psk v2").extract(&psk.0[..]);
        let mut seed = Zeroizing::new([0u8; 32]);
        prk.expand(&[b"twofold ed25519 seed ", role.as_bytes()], SeedLen)
            .and_then(|okm| okm.fill(&mut seed[..]))
            .map_err(|_| KeyError::Random)?;
        KeyPair::from_seed(&seed)
    }

    /// The public half.
    pub fn public(&self) -> PublicKey {
        self.public
    }

    /// The PKCS#8 DER of the key pair (secret).
    pub(crate) fn pkcs8_der(&self) -> &[u8] {
        &self.pkcs8
    }
}

/// Fails unless `text` holds exactly one PEM block (a file of two keys
/// would otherwise silently mean its first).
fn one_block(text: &[u8]) -> Result<(), String> {
    let blocks = text
        .windows(b"-----BEGIN ".len())
        .filter(|w| w == b"-----BEGIN ")
        .count();
    match blocks {
        1 => Ok(()),
        0 => Err("no PEM block".into()),
        n => Err(format!("{n} PEM blocks; a key file holds one key")),
    }
}

/// A pre-shared secret: 256 bits from the operating system's randomness.
/// Its file (`NAME.psk`) is the line [`PSK_HEADER`] and a line of 64 hex
/// digits; nothing else is accepted (no passphrase). `Debug` shows nothing
/// of it.
pub struct Psk(Zeroizing<[u8; PSK_LEN]>);

impl fmt::Debug for Psk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Psk(..)")
    }
}

impl Psk {
    /// A fresh secret.
    pub fn generate() -> Result<Psk, KeyError> {
        let mut bytes = Zeroizing::new([0u8; PSK_LEN]);
        SystemRandom::new()
            .fill(&mut bytes[..])
            .map_err(|_| KeyError::Random)?;
        Ok(Psk(bytes))
    }

    /// The text of its file.
    pub fn to_text(&self) -> Zeroizing<String> {
        let mut text = Zeroizing::new(format!("{PSK_HEADER}\n"));
        for b in self.0.iter() {
            text.push(char::from_digit(u32::from(b >> 4), 16).expect("a hex digit"));
            text.push(char::from_digit(u32::from(b & 15), 16).expect("a hex digit"));
        }
        text.push('\n');
        text
    }

    /// Reads the text of a `NAME.psk` file (a final newline optional).
    pub fn from_text(text: &[u8]) -> Result<Psk, KeyError> {
        let text = text.strip_suffix(b"\n").unwrap_or(text);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let Some(at) = text.iter().position(|&b| b == b'\n') else {
            return Err(KeyError::NotAPsk("it is not two lines"));
        };
        let (header, digits) = (&text[..at], &text[at + 1..]);
        let header = header.strip_suffix(b"\r").unwrap_or(header);
        if header != PSK_HEADER.as_bytes() {
            return Err(KeyError::NotAPsk("its first line is not `twofold-psk-v1`"));
        }
        if digits.len() != 2 * PSK_LEN || !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err(KeyError::NotAPsk("its second line is not 64 hex digits"));
        }
        let mut bytes = Zeroizing::new([0u8; PSK_LEN]);
        let digit = |d: u8| (d as char).to_digit(16).expect("checked hex") as u8;
        for (b, pair) in bytes.iter_mut().zip(digits.chunks(2)) {
            *b = digit(pair[0]) << 4 | digit(pair[1]);
        }
        Ok(Psk(bytes))
    }
}

/// The length of an Ed25519 seed, for HKDF.
struct SeedLen;

impl ring::hkdf::KeyType for SeedLen {
    fn len(&self) -> usize {
        32
    }
}

/// `der` as a PEM block labelled `label`, 64 base64 characters a line.
fn pem(label: &str, der: &[u8]) -> String {
    let b64 = base64(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known_vectors() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn keys_survive_their_pem_files() {
        let pair = KeyPair::generate().unwrap();
        let again = KeyPair::from_pem(pair.to_pem().as_bytes()).unwrap();
        assert_eq!(again.public(), pair.public());
        let public = PublicKey::from_pem(pair.public().to_pem().as_bytes()).unwrap();
        assert_eq!(public, pair.public());
        assert_ne!(KeyPair::generate().unwrap().public(), pair.public());
    }

    #[test]
    fn a_public_key_is_not_a_private_key_and_back() {
        let pair = KeyPair::generate().unwrap();
        assert!(KeyPair::from_pem(pair.public().to_pem().as_bytes()).is_err());
        assert!(PublicKey::from_pem(pair.to_pem().as_bytes()).is_err());
        assert!(PublicKey::from_pem(b"hello").is_err());
    }

    #[test]
    fn a_file_of_two_keys_is_refused() {
        let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
        let two = a.public().to_pem() + &b.public().to_pem();
        let err = PublicKey::from_pem(two.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("2 PEM blocks"), "{err}");
        let two = a.to_pem().to_string() + &b.to_pem();
        assert!(KeyPair::from_pem(two.as_bytes()).is_err());
    }

    #[test]
    fn openssl_format_ed25519_key_is_read() {
        // `openssl genpkey -algorithm ed25519` (RFC 8410 test key).
        let pem = b"-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n-----END PRIVATE KEY-----\n";
        let pair = KeyPair::from_pem(pem).unwrap();
        let public = b"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n";
        assert_eq!(pair.public(), PublicKey::from_pem(public).unwrap());
    }

    #[test]
    fn psk_keys_are_deterministic_and_distinct_per_role() {
        let psk = Psk::generate().unwrap();
        let again = Psk::from_text(psk.to_text().as_bytes()).unwrap();
        let a = KeyPair::from_psk(&psk, "a").unwrap();
        assert_eq!(a.public(), KeyPair::from_psk(&again, "a").unwrap().public());
        assert_ne!(a.public(), KeyPair::from_psk(&psk, "b").unwrap().public());
        let other = Psk::generate().unwrap();
        assert_ne!(a.public(), KeyPair::from_psk(&other, "a").unwrap().public());
        let crlf = psk.to_text().replace('\n', "\r\n");
        assert!(Psk::from_text(crlf.as_bytes()).is_ok());
    }

    #[test]
    fn a_passphrase_or_a_short_secret_is_refused_without_echoing_it() {
        let digits = "0123456789abcdef".repeat(4);
        for text in [
            "our lab secret for twofold runs 2024".to_string(),
            digits.clone(),
            format!("{PSK_HEADER}\n{}", &digits[..62]),
            format!("{PSK_HEADER}\n+{}", &digits[1..]),
            format!("{PSK_HEADER}\n{digits}0"),
            format!("{PSK_HEADER}\n{digits}\nmore"),
            format!("twofold-psk-v0\n{digits}"),
        ] {
            let err = Psk::from_text(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains("keygen --psk"), "{err}");
            assert!(
                !err.contains("lab secret") && !err.contains("0123456789ab"),
                "{err}"
            );
        }
        let ok = format!("{PSK_HEADER}\n{digits}\n");
        assert!(Psk::from_text(ok.as_bytes()).is_ok());
        assert_eq!(
            format!("{:?}", Psk::from_text(ok.as_bytes()).unwrap()),
            "Psk(..)"
        );
    }

    #[test]
    fn debug_shows_no_secret() {
        let pair = KeyPair::generate().unwrap();
        let shown = format!("{pair:?}");
        assert!(shown.starts_with("KeyPair(") && shown.len() < 30, "{shown}");
    }
}
