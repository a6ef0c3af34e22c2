//! twofold-protocol
