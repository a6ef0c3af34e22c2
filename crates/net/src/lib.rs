//! twofold-net
