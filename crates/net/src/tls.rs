//! TLS 1.3 (rustls with the ring provider) with pinned Ed25519 keys as
//! RFC 7250 raw public keys: both ends authenticate, each accepts only the
//! keys it was given. See `docs/security.md`.

use std::fmt;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::AlwaysResolvesClientRawPublicKeys;
use rustls::crypto::{ring as provider, verify_tls13_signature_with_raw_key, CryptoProvider};
use rustls::pki_types::{
    CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, SubjectPublicKeyInfoDer,
    UnixTime,
};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::{AlwaysResolvesServerRawPublicKeys, NoServerSessionStorage};
use rustls::sign::CertifiedKey;
use rustls::{
    ClientConfig, DigitallySignedStruct, DistinguishedName, Error, PeerIncompatible, ServerConfig,
    SignatureScheme,
};

use crate::keys::{KeyPair, PublicKey};

/// The name a client asks for; the server's key is pinned, so the name is
/// not checked.
pub(crate) const SERVER_NAME: &str = "twofold.invalid";

/// Label of the keying material exported from every TLS connection
/// (RFC 8446 §7.5): what binds a session's links to each other.
pub const EXPORTER_LABEL: &[u8] = b"EXPORTER-twofold-link";

/// How the connections of a channel are protected.
#[derive(Clone, Default)]
pub enum Security {
    /// Plain TCP: anyone on the path can read and change the bytes. Only
    /// for in-process runs (`--local`), tests, and `--insecure`.
    #[default]
    Plain,
    /// TLS 1.3 with mutual authentication by pinned keys.
    Tls(Arc<TlsConfig>),
}

impl fmt::Debug for Security {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Security::Plain => f.write_str("Plain"),
            Security::Tls(config) => write!(f, "Tls({config:?})"),
        }
    }
}

impl PartialEq for Security {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Security::Plain, Security::Plain) => true,
            (Security::Tls(a), Security::Tls(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Security {}

impl Security {
    /// TLS with this party's key pair `ours`, accepting a peer that proves
    /// it holds one of `peers`.
    pub fn tls(ours: &KeyPair, peers: &[PublicKey]) -> Result<Security, Error> {
        Ok(Security::Tls(Arc::new(TlsConfig::new(ours, peers)?)))
    }

    /// Whether connections are encrypted and authenticated.
    pub fn is_tls(&self) -> bool {
        matches!(self, Security::Tls(_))
    }
}

/// The client and server configurations of one party.
pub struct TlsConfig {
    pub(crate) client: Arc<ClientConfig>,
    pub(crate) server: Arc<ServerConfig>,
    ours: PublicKey,
    peers: Vec<PublicKey>,
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("ours", &self.ours)
            .field("peers", &self.peers)
            .finish()
    }
}

impl TlsConfig {
    /// Both configurations: TLS 1.3 only, AES-128-GCM first, X25519 key
    /// exchange (forward secrecy), no session resumption, and on both
    /// sides the peer's raw public key pinned to `peers`.
    pub fn new(ours: &KeyPair, peers: &[PublicKey]) -> Result<TlsConfig, Error> {
        let provider = Arc::new(crypto_provider());
        let signing = provider
            .key_provider
            .load_private_key(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
                ours.pkcs8_der().to_vec(),
            )))?;
        let certified = Arc::new(CertifiedKey::new(
            vec![CertificateDer::from(ours.public().spki_der())],
            signing,
        ));
        let verifier = Arc::new(Pinned {
            keys: peers.iter().map(PublicKey::spki_der).collect(),
            provider: provider.clone(),
        });
        let mut client = ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .dangerous()
            .with_custom_certificate_verifier(verifier.clone())
            .with_client_cert_resolver(Arc::new(AlwaysResolvesClientRawPublicKeys::new(
                certified.clone(),
            )));
        client.resumption = rustls::client::Resumption::disabled();
        client.enable_sni = false;
        let mut server = ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_client_cert_verifier(verifier)
            .with_cert_resolver(Arc::new(AlwaysResolvesServerRawPublicKeys::new(certified)));
        server.session_storage = Arc::new(NoServerSessionStorage {});
        server.send_tls13_tickets = 0;
        Ok(TlsConfig {
            client: Arc::new(client),
            server: Arc::new(server),
            ours: ours.public(),
            peers: peers.to_vec(),
        })
    }

    /// This party's public key.
    pub fn public(&self) -> PublicKey {
        self.ours
    }

    /// The keys a peer may hold.
    pub fn peers(&self) -> &[PublicKey] {
        &self.peers
    }

    /// The name the client side sends.
    pub(crate) fn server_name() -> ServerName<'static> {
        ServerName::try_from(SERVER_NAME).expect("a valid DNS name")
    }
}

/// ring's provider with the cipher suites in our order: AES-128-GCM (with
/// AES-NI the fastest), then AES-256-GCM and ChaCha20-Poly1305.
fn crypto_provider() -> CryptoProvider {
    use provider::cipher_suite::*;
    CryptoProvider {
        cipher_suites: vec![
            TLS13_AES_128_GCM_SHA256,
            TLS13_AES_256_GCM_SHA384,
            TLS13_CHACHA20_POLY1305_SHA256,
        ],
        ..provider::default_provider()
    }
}

/// The verifier of both sides: the peer's raw public key must be one of
/// `keys`, and its handshake signature must verify under it.
struct Pinned {
    keys: Vec<Vec<u8>>,
    provider: Arc<CryptoProvider>,
}

impl fmt::Debug for Pinned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pinned({} keys)", self.keys.len())
    }
}

impl Pinned {
    fn check(&self, presented: &CertificateDer<'_>) -> Result<(), Error> {
        if self.keys.iter().any(|k| k.as_slice() == presented.as_ref()) {
            Ok(())
        } else {
            Err(Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify13(
        &self,
        message: &[u8],
        key: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature_with_raw_key(
            message,
            &SubjectPublicKeyInfoDer::from(key.as_ref()),
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        self.check(end_entity)
            .map(|()| ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        Err(PeerIncompatible::Tls12NotOffered.into())
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.verify13(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SignatureScheme::ED25519]
    }

    fn requires_raw_public_keys(&self) -> bool {
        true
    }
}

impl ClientCertVerifier for Pinned {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        self.check(end_entity)
            .map(|()| ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        Err(PeerIncompatible::Tls12NotOffered.into())
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.verify13(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SignatureScheme::ED25519]
    }

    fn requires_raw_public_keys(&self) -> bool {
        true
    }
}

/// What a TLS failure means, for the party's error message.
pub(crate) fn describe(e: &Error) -> String {
    use rustls::AlertDescription as A;
    match e {
        Error::InvalidCertificate(_) => {
            "the peer's key is not the one this party was told to accept (--peer-key / --psk-file)"
                .into()
        }
        Error::AlertReceived(A::BadCertificate | A::CertificateUnknown | A::AccessDenied) => {
            "the peer refused this party's key (its --peer-key / --psk-file does not match our --key)"
                .into()
        }
        Error::DecryptError | Error::AlertReceived(A::BadRecordMac) => {
            "data was modified, replayed or reordered in transit (bad record MAC)".into()
        }
        Error::AlertReceived(alert) => format!("the peer ended the connection with alert {alert:?}"),
        Error::InvalidMessage(_) | Error::InappropriateMessage { .. } => {
            format!("the peer sent bytes that are not a valid TLS 1.3 record ({e}): an unencrypted peer (--insecure), or data modified in transit")
        }
        other => other.to_string(),
    }
}
