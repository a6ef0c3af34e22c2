//! The exceptions of the package, and which one each failure raises.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use twofold_net::NetError;
use twofold_protocol::ProtocolError as RunFailure;

create_exception!(
    twofold,
    Error,
    PyException,
    "Any failure of twofold (the base of its other exceptions)."
);
create_exception!(
    twofold,
    CompileError,
    Error,
    "The program could not be read or compiled."
);
create_exception!(
    twofold,
    InputError,
    Error,
    "An input value is missing, unknown, of the wrong shape or out of range."
);
create_exception!(
    twofold,
    ProtocolError,
    Error,
    "The two-party (or three-party) protocol failed."
);
create_exception!(
    twofold,
    NetworkError,
    ProtocolError,
    "The peer could not be reached, left, stalled, or the address was taken."
);
create_exception!(
    twofold,
    IntegrityError,
    NetworkError,
    "The secure channel failed its integrity or authentication check."
);

/// `error` with its causes, as the command line prints it.
pub fn message(error: &anyhow::Error) -> String {
    format!("{error:#}")
}

/// The exception for a failed run: by the protocol error behind `error`
/// (network, integrity, inputs, or the protocol itself), else [`Error`].
pub fn run_error(error: anyhow::Error) -> PyErr {
    let text = message(&error);
    match error.downcast_ref::<RunFailure>() {
        Some(
            RunFailure::Net(NetError::Integrity(_)) | RunFailure::Meet(NetError::Integrity(_)),
        ) => IntegrityError::new_err(text),
        Some(RunFailure::Net(_) | RunFailure::Meet(_) | RunFailure::Listen { .. }) => {
            NetworkError::new_err(text)
        }
        Some(RunFailure::Inputs(_)) => InputError::new_err(text),
        Some(_) => ProtocolError::new_err(text),
        None => Error::new_err(text),
    }
}

/// An [`InputError`] for `error`.
pub fn input_error(error: anyhow::Error) -> PyErr {
    InputError::new_err(message(&error))
}

/// A [`CompileError`] for `error`.
pub fn compile_error(error: anyhow::Error) -> PyErr {
    CompileError::new_err(message(&error))
}

/// An [`Error`] for `error`.
pub fn error(error: anyhow::Error) -> PyErr {
    Error::new_err(message(&error))
}

/// Adds the exception classes to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("Error", py.get_type::<Error>())?;
    module.add("CompileError", py.get_type::<CompileError>())?;
    module.add("InputError", py.get_type::<InputError>())?;
    module.add("ProtocolError", py.get_type::<ProtocolError>())?;
    module.add("NetworkError", py.get_type::<NetworkError>())?;
    module.add("IntegrityError", py.get_type::<IntegrityError>())?;
    Ok(())
}
