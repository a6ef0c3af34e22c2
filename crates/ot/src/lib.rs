//! twofold-ot
